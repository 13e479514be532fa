import path from 'node:path';
import test from 'ava';
import { startDaemon } from '../helpers/daemon.js';
import { chromiumMissing, launchChromium, watchPage } from '../helpers/browser.js';
import { repositoryRoot } from '../helpers/runtime.js';

/**
 * The "done when", as a user meets it: the shipped `quarryd` (bin/quarryd.js, dist/ and
 * the built front end, as `npm start` runs it) serves the quickstart; opening `/` in Chromium
 * shows its datasets, and a query runs and charts.
 */
const skip = chromiumMissing();
const browserTest = skip !== undefined && process.env['CI'] !== 'true' ? test.skip : test;

browserTest('npm start\'s quickstart: the page shows its datasets, and a query runs and charts', async (t) => {
  const daemon = await startDaemon([path.join(repositoryRoot, 'examples/quickstart')], { shipped: true });
  t.teardown(async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  });
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await (await browser.newContext()).newPage();
  const problems = await watchPage(page, new URL(daemon.baseUrl).origin);
  await page.goto(`${daemon.baseUrl}/`);
  await page.locator('[data-dataset="orders"]', { hasText: 'Ready' }).waitFor();
  await page.locator('[data-dataset="customers"]').waitFor();
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText('SELECT status, count(*) AS orders FROM orders GROUP BY status ORDER BY orders DESC');
  await page.keyboard.press('Escape');
  await page.locator('#run').click();
  await page.locator('#status', { hasText: '6 rows' }).waitFor();
  t.is(await page.locator('.grid-row').first().locator('.cell').nth(1).textContent(), 'delivered');
  await page.locator('[data-view="chart"]').click();
  t.is(await page.locator('[data-test="chart-kind"]').inputValue(), 'bar');
  // The chart view is laid out after the click: wait until its canvas has a size (a loaded
  // machine measured it at 0 x 0 right after the click; Playwright's "visible" is a non-empty box).
  await page.locator('[data-test="chart-canvas"]').waitFor({ state: 'visible' });
  const box = await page.locator('[data-test="chart-canvas"]').boundingBox();
  t.true(box !== null && box.width > 100 && box.height > 100, JSON.stringify(box));
  t.deepEqual(problems.list, []);
});
