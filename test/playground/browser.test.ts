import { readFileSync } from 'node:fs';
import anyTest, { type TestFn } from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { tableFromIPC } from 'apache-arrow';
import { chromiumMissing, launchChromium, watchPage, type PageProblems } from '../helpers/browser.js';
import { QUICKSTART_MANIFEST, startRuntime, type TestRuntime } from '../helpers/runtime.js';

/**
 * The playground in a real browser (Debian's Chromium, driven by playwright-core): the page
 * loads with the quickstart's datasets, runs SQL read as Arrow IPC, shows 100k rows without
 * putting them in the DOM, charts, saves CSV and PNG, refreshes a dataset, and never breaks its
 * CSP or talks to another origin. One runtime and one browser serve the serial tests below.
 */
interface Context {
  runtime: TestRuntime;
  browser: Browser;
  browserContext: BrowserContext;
  page: Page;
  problems: PageProblems;
}
const test = anyTest as TestFn<Context>;
const skip = chromiumMissing();
const browserTest = skip !== undefined && process.env['CI'] !== 'true' ? test.serial.skip : test.serial;
if (skip !== undefined && process.env['CI'] !== 'true') console.warn(`playground browser tests skipped: ${skip}`);

// A long item_ttl: the default 1 s can pass between two runs on a loaded machine.
const MANIFEST = `${QUICKSTART_MANIFEST}
runtime:
  caching:
    sql_results:
      item_ttl: 10m
views:
  - name: orders_by_status
    sql: SELECT status, count(*) AS orders FROM orders GROUP BY status
`;

test.before(async (t) => {
  if (skip !== undefined && process.env['CI'] !== 'true') return;
  const runtime = await startRuntime({ manifest: MANIFEST, withQuickstartData: true });
  const browser = await launchChromium();
  const browserContext = await browser.newContext({ acceptDownloads: true, viewport: { width: 1400, height: 900 } });
  const page = await browserContext.newPage();
  const problems = await watchPage(page, new URL(runtime.baseUrl).origin);
  t.context = { runtime, browser, browserContext, page, problems };
});

test.after.always(async (t) => {
  await t.context.browser?.close();
  await t.context.runtime?.runtime.stop();
});

/**
 * The few browser globals the page functions below use: this program is compiled without the
 * DOM's types, and page functions cannot be strings (the page's CSP forbids eval, rightly).
 */
interface BrowserSide {
  document: { getElementById(id: string): { textContent: string | null } | null; querySelector(selector: string): { textContent: string | null } | null };
  getComputedStyle(element: unknown): { textAlign: string };
  quarryPlayground: {
    renderedRows(): number;
    chart(): { config: { type: string }; data: { labels: unknown[]; datasets: { label: string; data: unknown[] }[] } } | undefined;
  };
}

/** How many result rows exist in the page's DOM. */
const renderedRows = (page: Page) => page.evaluate(() => (globalThis as unknown as BrowserSide).quarryPlayground.renderedRows());

/** Types `sql` into the editor as a user would and runs it with Ctrl-Enter; resolves when the status line shows the outcome. */
async function runInEditor(page: Page, sql: string): Promise<string> {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText(sql);
  await page.keyboard.press('Escape');
  const answered = page.waitForResponse((response) => response.url().endsWith('/v1/sql') && response.request().postData() === sql.trim().replace(/;$/, ''));
  await page.keyboard.press('Control+Enter');
  await answered;
  await page.waitForFunction(() => !/Running/.test((globalThis as unknown as BrowserSide).document.getElementById('status')?.textContent ?? ''));
  return (await page.locator('#status').textContent()) ?? '';
}

browserTest('the page loads from the runtime with the quickstart datasets, a view and their columns', async (t) => {
  const { page, runtime } = t.context;
  const response = await page.goto(`${runtime.baseUrl}/`);
  t.is(response?.status(), 200);
  await page.locator('[data-dataset="orders"]').waitFor();
  t.regex((await page.locator('[data-dataset="orders"]').textContent()) ?? '', /Ready/);
  t.regex((await page.locator('[data-dataset="orders"]').textContent()) ?? '', /accelerated · duckdb memory/);
  t.regex((await page.locator('[data-dataset="customers"]').textContent()) ?? '', /live from source/);
  await page.locator('[data-dataset="orders"] summary').click();
  t.regex((await page.locator('[data-dataset="orders"] .columns').textContent()) ?? '', /order_id\s*BIGINT/);
  await page.locator('[data-view="orders_by_status"] summary').click();
  t.regex((await page.locator('[data-view="orders_by_status"] .columns').textContent()) ?? '', /status\s*VARCHAR/);
  await page.locator('[data-test="readiness"]').waitFor();
  t.is(await page.locator('[data-test="readiness"]').textContent(), 'ready');
  t.regex((await page.locator('#runtime .listeners').textContent()) ?? '', /http/);
});

browserTest('a query runs with Ctrl-Enter, is read as Arrow IPC, and shows typed, aligned columns with NULLs marked', async (t) => {
  const { page } = t.context;
  const requests: { accept: string | undefined; contentType: string | undefined }[] = [];
  const listener = async (response: import('playwright-core').Response) => {
    if (response.url().endsWith('/v1/sql')) requests.push({ accept: (await response.request().allHeaders())['accept'], contentType: response.headers()['content-type'] });
  };
  page.on('response', listener);
  const status = await runInEditor(page, 'SELECT order_id, status, unit_price, NULL::INTEGER AS nothing FROM orders ORDER BY order_id LIMIT 50');
  page.off('response', listener);
  t.regex(status, /^50 rows · [\d.]+ ms · x-cache MISS$/);
  const ours = requests.filter((request) => request.accept?.includes('arrow'));
  t.true(ours.length >= 1, JSON.stringify(requests));
  t.is(ours[0]!.contentType, 'application/vnd.apache.arrow.stream');
  const header = (await page.locator('.grid-header').textContent()) ?? '';
  t.regex(header, /order_idInt64/);
  t.regex(header, /unit_priceDecimal\(10, 2\)/);
  const firstRow = page.locator('.grid-row').first();
  t.is(await firstRow.locator('.cell').nth(1).textContent(), '1');
  t.is(await firstRow.locator('.cell').nth(1).evaluate((cell) => (globalThis as unknown as BrowserSide).getComputedStyle(cell).textAlign), 'right');
  t.regex((await firstRow.locator('.cell').nth(3).textContent()) ?? '', /^\d+\.\d\d$/);
  t.is(await firstRow.locator('.cell.null').textContent(), 'NULL');

  // The same query again is a results-cache hit; with "bypass" ticked the cache is skipped.
  t.regex(await runInEditor(page, 'SELECT order_id, status, unit_price, NULL::INTEGER AS nothing FROM orders ORDER BY order_id LIMIT 50'), /x-cache HIT$/);
  await page.locator('#bypass-cache').check();
  t.regex(await runInEditor(page, 'SELECT order_id, status, unit_price, NULL::INTEGER AS nothing FROM orders ORDER BY order_id LIMIT 50'), /x-cache BYPASS$/);
  await page.locator('#bypass-cache').uncheck();
});

browserTest('the statement under the cursor runs, not the whole editor, or the selection when there is one', async (t) => {
  const { page } = t.context;
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText('SELECT 1 AS first_one;\nSELECT 2 AS second_one;');
  await page.keyboard.press('Escape');
  // The cursor is at the end: the second statement runs.
  const answered = page.waitForResponse((response) => response.url().endsWith('/v1/sql') && response.request().postData() === 'SELECT 2 AS second_one');
  await page.keyboard.press('Control+Enter');
  await answered;
  await page.locator('.grid-header', { hasText: 'second_one' }).waitFor();
  // A selection runs as it is.
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+End');
  const selected = page.waitForResponse((response) => response.url().endsWith('/v1/sql') && response.request().postData() === 'SELECT 1 AS first_one;');
  await page.keyboard.press('Control+Enter');
  await selected;
  await page.locator('.grid-header', { hasText: 'first_one' }).waitFor();
  t.is(await page.locator('.grid-header', { hasText: 'second_one' }).count(), 0);
});

browserTest('a running query is cancelled from the Run button, and the runtime stops it', async (t) => {
  const { page, runtime } = t.context;
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.insertText('SELECT sum(a.range * b.range) FROM range(1000000) a, range(1000000) b');
  await page.keyboard.press('Escape');
  const started = page.waitForRequest((request) => request.url().endsWith('/v1/sql') && request.postData()?.startsWith('SELECT sum(a.range') === true);
  await page.keyboard.press('Control+Enter');
  await started;
  const active = () => runtime.runtime.metrics.value('query_active_count', { protocol: 'http' }) ?? 0;
  while (active() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  await page.locator('#run', { hasText: 'Cancel' }).click();
  await page.locator('#status', { hasText: 'Cancelled' }).waitFor();
  t.is(await page.locator('#run').textContent(), 'Run ▶');
  // The page's own polling may be running a query of its own: wait for all to end.
  while (active() > 0) await new Promise((resolve) => setTimeout(resolve, 20));
  t.pass('no query is left running');
});

browserTest('100,000 rows arrive whole and stay virtualised while scrolling to the last one', async (t) => {
  const { page } = t.context;
  const status = await runInEditor(page, 'SELECT range AS n, range * 2 AS doubled FROM range(100000)');
  t.regex(status, /^100,000 rows/);
  const rendered = await renderedRows(page);
  t.true(rendered > 0 && rendered < 200, `${rendered} rows in the DOM`);
  await page.locator('#results').evaluate((viewport) => {
    viewport.scrollTop = viewport.scrollHeight;
  });
  await page.locator('.grid-row .row-number', { hasText: /^100000$/ }).waitFor();
  t.is(await page.locator('.grid-row', { has: page.locator('.row-number', { hasText: /^100000$/ }) }).locator('.cell').nth(1).textContent(), '99999');
  const afterScroll = await renderedRows(page);
  t.true(afterScroll < 200, `${afterScroll} rows in the DOM after scrolling`);
});

browserTest('a month and a count chart as a line guessed from the types, and the chart saves as PNG', async (t) => {
  const { page } = t.context;
  await runInEditor(page, "SELECT date_trunc('month', ordered_at) AS month, count(*) AS orders FROM orders GROUP BY 1 ORDER BY 1");
  await page.locator('[data-view="chart"]').click();
  t.is(await page.locator('[data-test="chart-kind"]').inputValue(), 'line');
  t.is(await page.locator('[data-test="chart-x"]').inputValue(), 'month');
  const drawn = await page.evaluate(() => {
    const chart = (globalThis as unknown as BrowserSide).quarryPlayground.chart();
    return chart && { type: chart.config.type, labels: chart.data.labels.length, series: chart.data.datasets.map((dataset) => dataset.label), points: chart.data.datasets[0]!.data.length };
  });
  t.deepEqual(drawn, { type: 'line', labels: 12, series: ['orders'], points: 12 });
  const download = page.waitForEvent('download');
  await page.locator('[data-test="chart-png"]').click();
  const png = readFileSync((await (await download).path())!);
  t.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  t.true(png.length > 2_000, `${png.length} bytes`);
  // A bar chart of the same result, chosen by the user.
  await page.locator('[data-test="chart-kind"]').selectOption('bar');
  t.is(await page.evaluate(() => (globalThis as unknown as BrowserSide).quarryPlayground.chart()?.config.type), 'bar');
  await page.locator('[data-view="results"]').click();
});

browserTest('the result downloads as CSV and as the Arrow stream the runtime sent, row for row', async (t) => {
  const { page, runtime } = t.context;
  const sql = 'SELECT order_id, status, discount, delivery_note FROM orders ORDER BY order_id';
  await runInEditor(page, sql);
  let download = page.waitForEvent('download');
  await page.locator('[data-export="csv"]').click();
  const csv = readFileSync((await (await download).path())!, 'utf8');
  const expected = await (await runtime.sql(sql, { accept: 'text/csv' })).text();
  const lines = csv.trimEnd().split('\r\n');
  t.is(lines.length, 5_001);
  t.is(lines[0], 'order_id,status,discount,delivery_note');
  t.is(lines.length, expected.trimEnd().split(/\r?\n/).length);
  download = page.waitForEvent('download');
  await page.locator('[data-export="arrow"]').click();
  const arrow = tableFromIPC(readFileSync((await (await download).path())!));
  t.is(arrow.numRows, 5_000);
  t.deepEqual(arrow.schema.fields.map((field) => field.name), ['order_id', 'status', 'discount', 'delivery_note']);
  download = page.waitForEvent('download');
  await page.locator('[data-export="json"]').click();
  const json = JSON.parse(readFileSync((await (await download).path())!, 'utf8')) as { order_id: number }[];
  t.is(json.length, 5_000);
  t.is(json[0]!.order_id, 1);
});

browserTest('a refresh of an accelerated dataset from the sidebar reloads it', async (t) => {
  const { page, runtime } = t.context;
  const before = runtime.runtime.engine.datasets().find((dataset) => dataset.name === 'orders')!.lastLoad;
  await page.locator('[data-test="refresh-orders"]').click();
  await page.locator('#status', { hasText: 'Dataset orders refreshed.' }).waitFor();
  const after = runtime.runtime.engine.datasets().find((dataset) => dataset.name === 'orders')!.lastLoad;
  t.is(after?.kind, 'refresh');
  t.not(after?.finished_at, before?.finished_at);
  await page.locator('[data-dataset="orders"]', { hasText: 'last refresh' }).waitFor();
  t.is(await page.locator('[data-test="refresh-customers"]').count(), 0, 'no refresh button on a dataset that is not accelerated');
});

browserTest('completion offers datasets and their columns; tabs and history survive a reload', async (t) => {
  const { page } = t.context;
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('SELECT * FROM ord');
  await page.locator('.cm-tooltip-autocomplete', { hasText: 'orders' }).waitFor();
  await page.keyboard.press('Escape');
  await page.keyboard.insertText('ers WHERE orders.');
  await page.keyboard.press('Control+Space');
  await page.locator('.cm-tooltip-autocomplete', { hasText: 'order_id' }).waitFor();
  await page.keyboard.press('Escape');
  await page.locator('[data-test="new-tab"]').click();
  t.is(await page.locator('.tab:not(.add)').count(), 2);
  await page.reload();
  await page.locator('[data-dataset="orders"]').waitFor();
  t.is(await page.locator('.tab:not(.add)').count(), 2);
  await page.locator('[data-view="history"]').click();
  t.regex((await page.locator('#history').textContent()) ?? '', /SELECT range AS n, range \* 2 AS doubled FROM range\(100000\)/);
  await page.locator('[data-view="results"]').click();
});

browserTest('the runtime pane shows the last queries from task history, and live figures', async (t) => {
  const { page } = t.context;
  await page.locator('[data-test="recent-query"]', { hasText: 'range(100000)' }).waitFor();
  const text = (await page.locator('[data-test="recent-query"]', { hasText: 'range(100000)' }).first().textContent()) ?? '';
  t.regex(text, /[\d.]+ ms · cache (MISS|BYPASS|HIT)/);
  t.is(await page.locator('[data-test="recent-query"]', { hasText: 'quarry-playground' }).count(), 0, "the page's own polling is left out");
  await page.waitForFunction(() => /\d/.test((globalThis as unknown as BrowserSide).document.querySelector('[data-test="qps"]')?.textContent ?? ''));
  t.regex((await page.locator('[data-test="p95"]').textContent()) ?? '', /^[\d.]+ ms$/);
  t.regex((await page.locator('[data-test="hit-ratio"]').textContent()) ?? '', /^\d+ %$/);
});

browserTest('nothing broke the CSP, threw, or reached another origin', async (t) => {
  t.deepEqual(t.context.problems.list, []);
});
