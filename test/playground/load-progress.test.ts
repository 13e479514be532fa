import test from 'ava';
import { chromiumMissing, launchChromium, watchPage } from '../helpers/browser.js';
import { HeldScan, heldPlugin } from '../helpers/held-connector.js';
import { withRuntime } from '../helpers/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';

/** The datasets sidebar while a load runs (a connector held after 1,000 of 4,000 rows), in Chromium. */
const skip = chromiumMissing();
const browserTest = skip !== undefined && process.env['CI'] !== 'true' ? test.skip : test;

browserTest('a load in progress shows its state, rows and progress bar, then its last load', async (t) => {
  const held = new HeldScan();
  const manifest = 'datasets:\n  - from: held:numbers\n    name: numbers\n    acceleration:\n      enabled: true\n';
  await withRuntime(t, { manifest, bundle: [...defaultPlugins(), heldPlugin(held)], waitForLoad: false }, async ({ baseUrl, runtime }) => {
    t.teardown(() => held.release());
    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const page = await (await browser.newContext()).newPage();
    // 503: /v1/ready answers "not ready" while the load runs (runtime.ready_state: on_load).
    const problems = await watchPage(page, new URL(baseUrl).origin, [503]);
    await page.goto(`${baseUrl}/`);
    const entry = page.locator('[data-dataset="numbers"]');
    await entry.locator('.progress', { hasText: '1,000 rows' }).waitFor();
    t.regex((await entry.textContent()) ?? '', /Initializing/);
    t.regex((await entry.locator('.progress').textContent()) ?? '', /^load fetching · 1,000 rows/);
    t.is(await entry.locator('progress').evaluate((bar) => (bar as unknown as { value: number }).value), 25);
    await page.locator('[data-test="readiness"]', { hasText: 'not ready (503)' }).waitFor();

    held.release();
    await runtime.whenLoaded();
    // The sidebar polls every second while something loads: it sees the end by itself.
    await entry.locator('.badge', { hasText: 'Ready' }).waitFor();
    t.is(await entry.locator('.progress').count(), 0);
    await page.locator('[data-test="readiness"]', { hasText: /^ready$/ }).waitFor();
    t.regex((await entry.textContent()) ?? '', /last load .* \(4,000 rows, \d+ ms\)/);
    t.deepEqual(problems.list, []);
  });
});
