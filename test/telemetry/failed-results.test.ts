import test from 'ava';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import { withTelemetryRuntime } from './helpers.js';

/**
 * A query that fails while its result streams is a failure everywhere the runtime reports
 * it: nothing of it is cached, its task-history row carries the error, and query_failures
 * counts it. (Before, DuckDB's null chunk ended such a stream as if it were complete.)
 */

const manifest = `
version: v2
kind: Spicepod
name: failing
datasets: []
runtime:
  caching:
    sql_results:
      enabled: true
      item_ttl: 10m
`;
const failingAt = (row: number, rows: number) => `SELECT CASE WHEN i = ${row} THEN error('boom at ${row}') ELSE i END AS v FROM range(${rows}) t(i)`;
const ENGINE_MESSAGE = /boom at \d+|the engine kept only that it stopped the query/;

test('a failed result is not cached, its task-history row has the error, and query_failures counts it on every door', async (t) => {
  await withTelemetryRuntime(t, { manifest, metrics: true, flight: true }, async (context) => {
    const late = failingAt(5_000_000, 10_000_000);
    const early = failingAt(150_000, 300_000);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      // HTTP after the response started: a 200 whose body never completes.
      const streamed = await fetch(`${context.baseUrl}/v1/sql`, { method: 'POST', body: late });
      t.is(streamed.status, 200);
      t.not(streamed.headers.get('x-cache'), 'HIT', 'a failed result is never served from the cache');
      await t.throwsAsync(streamed.text(), undefined, 'the body is cut short');
      // HTTP before anything was sent: the ordinary error status and body.
      const buffered = await context.sql(early);
      t.is(buffered.status, 400);
      t.not(buffered.headers.get('x-cache'), 'HIT');
      const body = (await buffered.json()) as { error: { code: string; message: string } };
      t.is(body.error.code, 'QUERY_FAILED');
      t.regex(body.error.message, ENGINE_MESSAGE);
      // Flight: the stream ends with the error status.
      const failure = await t.throwsAsync(context.flightClient().query(late));
      t.regex(failure!.message, ENGINE_MESSAGE);
    }

    await taskHistory(context.runtime.hooks)!.flush();
    const rows = (await (await context.sql(`SELECT input, error_message, labels['protocol'] AS protocol, labels['error_code'] AS error_code FROM runtime.task_history WHERE task = 'sql_query' AND input LIKE '%boom at%' AND input NOT LIKE '%task_history%'`, { accept: 'application/json' })).json()) as Array<{ input: string; error_message: string | null; protocol: string; error_code: string | null }>;
    t.is(rows.length, 6, JSON.stringify(rows));
    for (const row of rows) {
      t.regex(row.error_message ?? 'no error recorded', ENGINE_MESSAGE, `${row.protocol}: ${row.input}`);
    }
    t.deepEqual([...new Set(rows.map((row) => row.protocol))].sort(), ['flight', 'http']);

    const metrics = await context.scrape();
    const failures = (protocol: string) => [...metrics.matchAll(new RegExp(`^query_failures(?:_total)?\\{[^}]*protocol="${protocol}"[^}]*\\} (\\d+)`, 'gm'))].reduce((sum, match) => sum + Number(match[1]), 0);
    t.is(failures('http'), 4, metrics.split('\n').filter((line) => line.startsWith('query_failures')).join('\n'));
    t.is(failures('flight'), 2);
  });
});
