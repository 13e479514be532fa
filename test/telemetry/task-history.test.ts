import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { withTelemetryRuntime, type TelemetryRuntime } from './helpers.js';

interface TaskRow {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  task: string;
  input: string;
  captured_output: string | null;
  start_time: string;
  end_time: string;
  execution_duration_ms: number;
  error_message: string | null;
  labels: Record<string, string>;
}

/** Flushes the write buffer, then reads the table over HTTP (as a user would). */
async function taskRows(context: TelemetryRuntime, where = "task = 'sql_query'"): Promise<TaskRow[]> {
  await taskHistory(context.runtime.hooks)!.flush();
  const response = await context.sql(`SELECT * FROM runtime.task_history WHERE ${where} ORDER BY start_time`, { accept: 'application/json' });
  if (response.status !== 200) throw new Error(`reading task history answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as TaskRow[];
}

test('runtime.task_history has Spice\'s columns and types', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\n' }, async ({ runtime }) => {
    // A view over the compact stored rows: DuckDB gives views no NOT NULL, so only names and
    // types are Spice's to the letter (the never-null columns are checked by the row tests).
    const columns = await runtime.engine.runInternal("SELECT column_name, data_type FROM information_schema.columns WHERE table_catalog = current_database() AND table_schema = 'runtime' AND table_name = 'task_history' ORDER BY ordinal_position");
    t.deepEqual(
      columns.map((column) => `${String(column['column_name'])} ${String(column['data_type'])}`),
      [
        'trace_id VARCHAR',
        'span_id VARCHAR',
        'parent_span_id VARCHAR',
        'task VARCHAR',
        'input VARCHAR',
        'captured_output VARCHAR',
        'start_time TIMESTAMP_NS',
        'end_time TIMESTAMP_NS',
        'execution_duration_ms DOUBLE',
        'error_message VARCHAR',
        'labels MAP(VARCHAR, VARCHAR)',
      ],
    );
  });
});

test('one sql_query row per HTTP and Flight query, successful or failed, readable over both', async (t) => {
  await withTelemetryRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, flight: true }, async (context) => {
    await context.sql('SELECT count(*) FROM orders');
    await context.sql('SELECT nope FROM orders');
    const client = context.flightClient();
    await client.query('SELECT * FROM customers LIMIT 4');
    const rows = await taskRows(context);
    t.is(rows.length, 3);
    const [ok, failed, flight] = rows as [TaskRow, TaskRow, TaskRow];

    t.is(ok.input, 'SELECT count(*) FROM orders');
    t.regex(ok.trace_id, /^[0-9a-f]{32}$/);
    t.regex(ok.span_id, /^[0-9a-f]{16}$/);
    t.is(ok.parent_span_id, null);
    t.is(ok.error_message, null);
    t.is(ok.captured_output, null, 'captured_output: none by default');
    t.true(ok.execution_duration_ms > 0);
    t.true(Date.parse(`${ok.end_time}Z`) >= Date.parse(`${ok.start_time}Z`));
    t.like(ok.labels, { protocol: 'http', datasets: 'orders', rows_produced: '1', accelerated: 'true', results_cache_hit: 'false', statement_type: 'SELECT' });
    t.is(ok.labels['error_code'], undefined);

    t.is(failed.labels['error_code'], 'SQL_INVALID');
    t.regex(failed.error_message ?? '', /nope/);
    t.is(failed.labels['rows_produced'], '0');

    t.like(flight.labels, { protocol: 'flight', datasets: 'customers', rows_produced: '4' });
    t.is(flight.labels['accelerated'], undefined, 'customers is read live');

    const overFlight = await client.query("SELECT task, labels['protocol'] AS protocol FROM runtime.task_history WHERE task = 'sql_query' ORDER BY start_time LIMIT 3");
    t.deepEqual(overFlight.table.toArray().map((row) => `${String(row.task)}/${String(row.protocol)}`), ['sql_query/http', 'sql_query/http', 'sql_query/flight']);
  });
});

test('a query answered by the results cache is labelled results_cache_hit=true and keeps its captured output', async (t) => {
  const manifest = `${QUICKSTART_MANIFEST}runtime:\n  task_history:\n    captured_output: truncated\n  caching:\n    sql_results:\n      item_ttl: 60s\n`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true }, async (context) => {
    const first = await context.sql('SELECT count(*) AS n FROM orders');
    const second = await context.sql('SELECT count(*) AS n FROM orders');
    t.is(first.headers.get('x-cache'), 'MISS');
    t.is(second.headers.get('x-cache'), 'HIT');
    const rows = await taskRows(context);
    t.is(rows[0]!.labels['results_cache_hit'], 'false');
    t.is(rows[1]!.labels['results_cache_hit'], 'true');
    t.is(rows[1]!.labels['query_execution_duration_ms'], '0');
    t.is(rows[0]!.captured_output, '[{"n":5000}]');
    t.is(rows[1]!.captured_output, '[{"n":5000}]', 'a cache hit is captured too (query.result sees every answer)');
  });
});

test('captured_output: truncated keeps the first 3 rows as /v1/sql JSON, nothing more', async (t) => {
  const manifest = `${QUICKSTART_MANIFEST}runtime:\n  task_history:\n    captured_output: truncated\n  caching:\n    sql_results:\n      enabled: false\n`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true }, async (context) => {
    const all = (await (await context.sql('SELECT order_id, status, ordered_at FROM orders ORDER BY order_id LIMIT 10', { accept: 'application/json' })).json()) as unknown[];
    await context.sql('SELECT 42 AS answer');
    await context.sql('SELECT 1 WHERE false');
    const rows = await taskRows(context);
    t.deepEqual(JSON.parse(rows[0]!.captured_output!), all.slice(0, 3));
    t.is(rows[1]!.captured_output, '[{"answer":42}]');
    t.is(rows[2]!.captured_output, '[]');
  });
});

test('accelerated loads and refreshes add accelerated_refresh rows, with durations and failures', async (t) => {
  await withTelemetryRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async (context) => {
    t.is((await fetch(`${context.baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' })).status, 201);
    // A refresh that fails (the file is no longer parquet) is recorded with its error.
    writeFileSync(path.join(context.directory, 'data/orders.parquet'), 'not parquet any more');
    t.is((await fetch(`${context.baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' })).status, 500);
    const rows = await taskRows(context, "task = 'accelerated_refresh'");
    t.deepEqual(rows.map((row) => [row.input, row.labels['kind'], row.error_message === null]), [
      ['orders', 'initial_load', true],
      ['orders', 'refresh', true],
      ['orders', 'refresh', false],
    ]);
    t.true(rows.every((row) => row.execution_duration_ms > 0), 'each row has the time the load took');
    t.is(rows[2]!.labels['error_code'], 'DATASET_LOAD_FAILED');
    t.regex(rows[2]!.error_message!, /parquet/i);
  });
});

test('internal queries are recorded with protocol internal and runtime_query=true', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\n' }, async (context) => {
    const { result } = await context.runtime.pipeline.execute({ sql: 'SELECT 1', protocol: 'internal', principal: { id: 'runtime', method: 'internal', canWrite: true } });
    for await (const _batch of result.batches) void _batch;
    const [row] = await taskRows(context);
    t.like(row!.labels, { protocol: 'internal', runtime_query: 'true', principal: 'runtime' });
  });
});

test('queries on runtime.task_history are recorded once each, never recursively', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\n' }, async (context) => {
    for (let i = 0; i < 3; i += 1) await context.sql('SELECT count(*) FROM runtime.task_history');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const rows = await taskRows(context);
    t.is(rows.length, 3, 'three queries, three rows; writing rows runs no query');
  });
});

test('other plugins record tasks through taskHistory(hooks); captured_context applies to them', async (t) => {
  const manifest = 'datasets: []\nruntime:\n  task_history:\n    captured_output: truncated\n';
  await withTelemetryRuntime(t, { manifest }, async (context) => {
    const history = taskHistory(context.runtime.hooks)!;
    const start = new Date(Date.now() - 1500);
    const parent = history.record({ task: 'tool_use::sql', input: 'x'.repeat(5000), capturedOutput: 'done', startTime: start, endTime: new Date(start.getTime() + 1500), labels: { tool: 'sql' } });
    t.regex(parent ?? '', /^[0-9a-f]{16}$/);
    history.record({ task: 'tool_use::list_datasets', input: '{}', startTime: start, endTime: start, parentSpanId: parent, errorMessage: 'boom' });
    const rows = await taskRows(context, "task LIKE 'tool_use::%'");
    const tool = rows.find((row) => row.task === 'tool_use::sql')!;
    t.is(tool.input, `${'x'.repeat(4096)}...[truncated]`);
    t.is(tool.captured_output, 'done');
    t.is(tool.execution_duration_ms, 1500);
    t.deepEqual(tool.labels, { tool: 'sql' });
    const child = rows.find((row) => row.task === 'tool_use::list_datasets')!;
    t.is(child.parent_span_id, parent!);
    t.is(child.error_message, 'boom');
  });
});

test('enabled: false: there is no runtime.task_history table and nothing is recorded', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\nruntime:\n  task_history:\n    enabled: false\n' }, async (context) => {
    await context.sql('SELECT 1');
    t.is(taskHistory(context.runtime.hooks), undefined);
    const response = await context.sql('SELECT * FROM runtime.task_history');
    t.is(response.status, 400);
    t.regex(await response.text(), /TABLE_NOT_FOUND.*task_history.*does not exist/);
    const stored = await context.runtime.engine.runInternal("SELECT table_name FROM information_schema.tables WHERE table_schema = 'runtime' AND table_name LIKE 'task_history%'");
    t.deepEqual(stored, [], 'nor its stored tables');
  });
});

test('users can read the view, not the stored tables behind it, and write to none of them', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\n' }, async (context) => {
    await context.sql('SELECT 1');
    await taskHistory(context.runtime.hooks)!.flush();
    for (const table of ['task_history_rows', 'task_history_shapes', 'task_history_extras']) {
      const read = await context.sql(`SELECT count(*) AS n FROM runtime.${table}`, { accept: 'application/json' });
      t.is(read.status, 403, `${table} is not readable`);
      t.is(((await read.json()) as { error: { code: string } }).error.code, 'ACCESS_DENIED');
    }
    for (const statement of [
      "INSERT INTO runtime.task_history_shapes (id, task, input, accelerated) VALUES (999, 'sql_query', 'forged', 0)",
      'DELETE FROM runtime.task_history_rows',
      'UPDATE runtime.task_history_extras SET error_message = NULL',
      'DROP VIEW runtime.task_history',
    ]) {
      const response = await context.sql(statement);
      t.not(response.status, 200, `refused: ${statement}`);
      await response.text();
    }
    const rows = await taskRows(context);
    t.true(rows.some((row) => row.input === 'SELECT 1'), 'the history is intact');
    t.false(rows.some((row) => row.input === 'forged'));
  });
});
