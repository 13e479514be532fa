import test from 'ava';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { withTelemetryRuntime, type TelemetryRuntime } from './helpers.js';

const NO_CACHE = '  caching:\n    sql_results:\n      enabled: false\n';

async function outputs(context: TelemetryRuntime): Promise<Array<{ input: string; captured_output: string | null }>> {
  await taskHistory(context.runtime.hooks)!.flush();
  const response = await context.sql("SELECT input, captured_output FROM runtime.task_history WHERE task = 'sql_query' ORDER BY start_time", { accept: 'application/json' });
  return (await response.json()) as Array<{ input: string; captured_output: string | null }>;
}

test('captured_plan: explain stores the plan of reads, even with captured_output: none; writes and failures get none', async (t) => {
  const manifest = `datasets:
  - from: file:data/orders.parquet
    name: orders
    access: read_write
    acceleration:
      enabled: true
runtime:
  task_history:
    captured_plan: explain
${NO_CACHE}`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true }, async (context) => {
    await context.sql('SELECT status, count(*) FROM orders GROUP BY status');
    await context.sql('INSERT INTO orders (order_id) VALUES (123456)');
    await context.sql('SELECT nope FROM orders');
    const [read, write, failed] = await outputs(context);
    t.regex(read!.captured_output ?? '', /physical_plan|HASH_GROUP_BY|PERFECT_HASH_GROUP_BY/);
    t.regex(read!.captured_output ?? '', /orders/i);
    t.is(write!.captured_output, null, 'never EXPLAIN a write: EXPLAIN ANALYZE would run it again');
    t.is(failed!.captured_output, null);
    const [count] = await context.runtime.engine.runInternal('SELECT count(*) AS n FROM orders WHERE order_id = 123456');
    t.is(count!['n'], 1n, 'the INSERT ran once');
  });
});

test('captured_plan: explain analyze stores the profiled plan', async (t) => {
  const manifest = `${QUICKSTART_MANIFEST}runtime:\n  task_history:\n    captured_plan: explain analyze\n${NO_CACHE}`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true }, async (context) => {
    await context.sql('SELECT count(*) FROM orders');
    const [row] = await outputs(context);
    t.regex(row!.captured_output ?? '', /Total Time|Query Profiling Information/i);
  });
});

test('min_sql_duration and min_plan_duration keep plans of quick queries out; captured output stays', async (t) => {
  for (const threshold of ['min_sql_duration: 1h', 'min_plan_duration: 1h']) {
    const manifest = `${QUICKSTART_MANIFEST}runtime:\n  task_history:\n    captured_plan: explain\n    captured_output: truncated\n    ${threshold}\n${NO_CACHE}`;
    await withTelemetryRuntime(t, { manifest, withQuickstartData: true }, async (context) => {
      await context.sql('SELECT 7 AS seven');
      const [row] = await outputs(context);
      t.is(row!.captured_output, '[{"seven":7}]', `${threshold}: no plan, the truncated output instead`);
    });
  }
  const manifest = `${QUICKSTART_MANIFEST}runtime:\n  task_history:\n    captured_plan: explain\n    min_sql_duration: 0s\n    min_plan_duration: 0s\n${NO_CACHE}`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true }, async (context) => {
    await context.sql('SELECT 7 AS seven');
    const [row] = await outputs(context);
    t.regex(row!.captured_output ?? '', /PROJECTION|DUMMY_SCAN|physical_plan/, 'thresholds of 0 let every plan through');
  });
});
