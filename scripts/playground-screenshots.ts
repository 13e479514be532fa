/**
 * Takes the screenshots of docs/playground.md: the shipped quarryd serving the quickstart,
 * driven in Debian's Chromium. Run with `node --import tsx scripts/playground-screenshots.ts`
 * after `npm run build`; it writes docs/images/playground-*.png.
 */
import path from 'node:path';
import { launchChromium } from '../test/helpers/browser.js';
import { startDaemon } from '../test/helpers/daemon.js';
import { repositoryRoot } from '../test/helpers/runtime.js';

const images = path.join(repositoryRoot, 'docs/images');
const daemon = await startDaemon([path.join(repositoryRoot, 'examples/quickstart')], { shipped: true });
const browser = await launchChromium();
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 820 }, deviceScaleFactor: 1 })).newPage();
  await page.goto(`${daemon.baseUrl}/`);
  await page.locator('[data-dataset="orders"]', { hasText: 'Ready' }).waitFor();
  const run = async (sql: string) => {
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.insertText(sql);
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Enter');
    await page.locator('#status', { hasText: 'rows' }).waitFor();
  };
  await page.locator('[data-dataset="orders"] summary').click();
  await run('SELECT order_id, ordered_at, status, category, quantity, unit_price, discount, delivery_note\nFROM orders\nORDER BY ordered_at DESC');
  await page.locator('[data-test="recent-query"]').first().waitFor();
  await page.screenshot({ path: path.join(images, 'playground-results.png') });
  await run("SELECT date_trunc('month', ordered_at) AS month,\n       count(*) AS orders,\n       sum(quantity) AS items\nFROM orders GROUP BY 1 ORDER BY 1");
  await page.locator('[data-view="chart"]').click();
  await page.screenshot({ path: path.join(images, 'playground-chart.png') });
  await page.locator('[data-view="history"]').click();
  await page.screenshot({ path: path.join(images, 'playground-history.png') });
  console.log(`screenshots written to ${images}`);
} finally {
  await browser.close();
  daemon.child.kill('SIGTERM');
  await daemon.exited;
}
