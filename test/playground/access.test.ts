import test from 'ava';
import { ACCESS_FILES, accessManifest, KEYS } from '../access/access-fixtures.js';
import { chromiumMissing, launchChromium, watchPage } from '../helpers/browser.js';
import { createTestPki, hasOpenssl } from '../helpers/certificates.js';
import { withRuntime } from '../helpers/runtime.js';

/**
 * The playground behind API keys and client certificates, in a real browser (Debian's Chromium
 * via playwright-core): the page itself loads without credentials; its data needs them.
 */
const skip = chromiumMissing();
const browserTest = skip !== undefined && process.env['CI'] !== 'true' ? test.skip : test;

browserTest('with API keys on, the page asks for a key, shows a wrong key refused, and keeps the key out of URLs, logs and local storage', async (t) => {
  await withRuntime(t, { manifest: accessManifest(), files: ACCESS_FILES }, async ({ baseUrl, logs }) => {
    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const page = await (await browser.newContext()).newPage();
    const problems = await watchPage(page, new URL(baseUrl).origin);
    const requestUrls: string[] = [];
    page.on('request', (request) => requestUrls.push(request.url()));

    // The page holds no data: served without a key. Its API calls are refused: it asks for one.
    t.is((await page.goto(`${baseUrl}/play`))?.status(), 200);
    await page.locator('#login[open]').waitFor();
    t.regex((await page.locator('#login-error').textContent()) ?? '', /requires an API key/);

    await page.locator('#api-key').fill('not-a-key-we-issued');
    await page.locator('#login-form button[type="submit"]').click();
    await page.locator('#login[open] #login-error', { hasText: 'API_KEY_INVALID' }).waitFor();
    t.regex((await page.locator('#login-error').textContent()) ?? '', /refused \(API_KEY_INVALID/);

    // A read-only key: data, but no refresh button.
    await page.locator('#api-key').fill(KEYS.reader);
    await page.locator('#login-form button[type="submit"]').click();
    await page.locator('[data-dataset="events"]').waitFor();
    t.is(await page.locator('[data-test="refresh-events"]').count(), 0);
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('SELECT count(*) AS events FROM events');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    await page.locator('#status', { hasText: '1 rows' }).waitFor();

    const storage = await page.evaluate(() => {
      const browserSide = globalThis as unknown as { sessionStorage: { getItem(key: string): string | null }; localStorage: { length: number; key(index: number): string | null; getItem(key: string): string | null } };
      const local: string[] = [];
      for (let index = 0; index < browserSide.localStorage.length; index += 1) local.push(browserSide.localStorage.getItem(browserSide.localStorage.key(index)!) ?? '');
      return { session: browserSide.sessionStorage.getItem('quarry.playground.api-key'), local: local.join('\n') };
    });
    t.is(storage.session, KEYS.reader);
    t.false(storage.local.includes(KEYS.reader), 'the key is not in local storage');
    t.false(requestUrls.some((url) => url.includes(KEYS.reader) || url.includes('not-a-key-we-issued')), 'no URL carries a key');
    t.false(page.url().includes(KEYS.reader));
    const logText = JSON.stringify(logs);
    t.false(logText.includes(KEYS.reader) || logText.includes('not-a-key-we-issued'), 'no log line carries a key');

    // Forget it and use the writer's key: the refresh button appears.
    await page.locator('#key-button', { hasText: 'Forget key' }).click();
    await page.locator('#key-button', { hasText: 'API key…' }).click();
    await page.locator('#api-key').fill(KEYS.writer);
    await page.locator('#login-form button[type="submit"]').click();
    await page.locator('[data-test="refresh-events"]').waitFor({ state: 'attached' });
    t.deepEqual(problems.list, []);
  });
});

browserTest('with client certificates required, the browser\'s certificate is what admits it', async (t) => {
  if (!hasOpenssl()) {
    t.log('skipped: no openssl to make the certificates');
    t.pass();
    return;
  }
  const pki = createTestPki();
  t.teardown(() => pki.remove());
  const runtime = `
  tls:
    enabled: true
    certificate_file: ${pki.server.certFile}
    key_file: ${pki.server.keyFile}
    client_auth_mode: required
    client_auth_ca_file: ${pki.ca.certFile}`;
  await withRuntime(t, { manifest: accessManifest({ keys: false, runtime }), files: ACCESS_FILES }, async ({ baseUrl }) => {
    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const origin = new URL(baseUrl).origin;
    // Playwright presents the certificate for this origin as the browser's own would be.
    const withCertificate = await browser.newContext({ ignoreHTTPSErrors: true, clientCertificates: [{ origin, certPath: pki.client.certFile, keyPath: pki.client.keyFile }] });
    const page = await withCertificate.newPage();
    const problems = await watchPage(page, origin);
    await page.goto(`${baseUrl}/`);
    await page.locator('[data-dataset="events"]').waitFor();
    t.is(await page.locator('#login[open]').count(), 0, 'no key is asked for');
    t.deepEqual(problems.list, []);

    // Without one the page (public, no data) loads, its data is refused, and it says why
    // instead of asking for a key.
    const without = await (await browser.newContext({ ignoreHTTPSErrors: true })).newPage();
    t.is((await without.goto(`${baseUrl}/`))?.status(), 200);
    await without.locator('#status', { hasText: 'CLIENT_CERTIFICATE_REQUIRED' }).waitFor();
    t.is(await without.locator('[data-dataset="events"]').count(), 0);
    t.is(await without.locator('#login[open]').count(), 0);
  });
});
