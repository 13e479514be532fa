import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch } from 'apache-arrow';
import { appendBatches } from '../../core/engine/append.js';
import { RowColumns } from '../../plugins/task-history/row-columns.js';
import { CREATE_TASK_HISTORY_SQL, type TaskRow } from '../../plugins/task-history/table.js';

// Task rows wait column by column and reach DuckDB through the engine's direct append (text
// as bytes, the labels map as a list of key/value structs, nanosecond timestamps as
// integers). Each row is read back from a real table and compared with what went in.

function row(index: number): TaskRow {
  return {
    traceId: index.toString(16).padStart(32, '0'),
    spanId: index.toString(16).padStart(16, '0'),
    parentSpanId: index % 3 === 0 ? `parent-${index}` : undefined,
    task: index % 2 === 0 ? 'sql_query' : 'accelerated_refresh',
    input: `SELECT ${index} AS "é", '🎉' ${'x'.repeat(index % 40)}`,
    capturedOutput: index % 5 === 0 ? `[{"n":${index}}]` : undefined,
    startTime: new Date(1_700_000_000_000 + index),
    endTime: new Date(1_700_000_000_000 + index * 2),
    executionDurationMs: index / 8,
    errorMessage: index % 7 === 0 ? `failed ${index}` : undefined,
    labels: index % 4 === 0 ? {} : { protocol: index % 2 === 0 ? 'http' : 'flight', rows_produced: String(index), 'ünïcode': 'ß'.repeat(index % 3) },
  };
}

async function withTable(run: (connection: DuckDBConnection, append: (batch: RecordBatch) => Promise<number>) => Promise<void>): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run('CREATE SCHEMA runtime');
    await connection.run(CREATE_TASK_HISTORY_SQL);
    const append = (batch: RecordBatch) => appendBatches({
      connection,
      table: { catalog: 'memory', schema: 'runtime', name: 'task_history' },
      schema: batch.schema,
      batches: (async function* () { yield batch; })(),
      signal: new AbortController().signal,
    });
    await run(connection, append);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const READ_BACK = `SELECT trace_id, span_id, parent_span_id, task, input, captured_output,
  epoch_ms(start_time) AS start_ms, epoch_ms(end_time) AS end_ms, execution_duration_ms, error_message,
  map_keys(labels) AS label_keys, map_values(labels) AS label_values
FROM runtime.task_history ORDER BY start_time`;

function expectedRow(source: TaskRow): Record<string, unknown> {
  return {
    trace_id: source.traceId,
    span_id: source.spanId,
    parent_span_id: source.parentSpanId ?? null,
    task: source.task,
    input: source.input,
    captured_output: source.capturedOutput ?? null,
    start_ms: BigInt(source.startTime.getTime()),
    end_ms: BigInt(source.endTime.getTime()),
    execution_duration_ms: source.executionDurationMs,
    error_message: source.errorMessage ?? null,
    label_keys: Object.keys(source.labels),
    label_values: Object.values(source.labels),
  };
}

test('rows held column by column reach the table exactly, across chunks and growth, and a cleared set starts anew', async (t) => {
  await withTable(async (connection, append) => {
    const columns = new RowColumns();
    const rows = Array.from({ length: 5_000 }, (_, index) => row(index));
    for (const source of rows) columns.append(source);
    t.is(columns.rows, 5_000);
    t.is(await append(columns.batch()), 5_000);
    const stored = (await connection.runAndReadAll(READ_BACK)).getRowObjectsJS();
    t.is(stored.length, 5_000);
    for (let index = 0; index < rows.length; index++) {
      if (JSON.stringify(stored[index], (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)) !== JSON.stringify(expectedRow(rows[index]!), (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))) {
        t.deepEqual(stored[index], expectedRow(rows[index]!), `row ${index}`);
        return;
      }
    }

    columns.clear();
    t.is(columns.rows, 0);
    columns.append(row(9_999));
    t.is(await append(columns.batch()), 1);
    const last = (await connection.runAndReadAll(`${READ_BACK} DESC LIMIT 1`)).getRowObjectsJS();
    t.deepEqual(last, [expectedRow(row(9_999))]);
  });
});

test('text DuckDB would refuse is repaired: lone surrogates become U+FFFD, label names colliding once repaired keep the last, a NaN duration is 0', async (t) => {
  await withTable(async (connection, append) => {
    const columns = new RowColumns();
    columns.append({
      ...row(1),
      input: "SELECT '\uD800 lone, 🎉 paired'",
      errorMessage: 'bad \uDC00 end',
      executionDurationMs: Number.NaN,
      labels: { 'k\uD800': '1', 'k\uDBFF': '2', plain: 'v\uDFFF' },
    });
    await append(columns.batch());
    const stored = (await connection.runAndReadAll('SELECT input, error_message, execution_duration_ms, map_keys(labels) AS keys, map_values(labels) AS values FROM runtime.task_history')).getRowObjectsJS();
    t.deepEqual(stored, [{
      input: "SELECT '\uFFFD lone, 🎉 paired'",
      error_message: 'bad \uFFFD end',
      execution_duration_ms: 0,
      keys: ['k\uFFFD', 'plain'],
      values: ['2', 'v\uFFFD'],
    }]);
  });
});

test('a slice of the batch (the writer appends 512 rows a turn) carries its own rows and maps', async (t) => {
  await withTable(async (connection, append) => {
    const columns = new RowColumns();
    const rows = Array.from({ length: 1_500 }, (_, index) => row(index));
    for (const source of rows) columns.append(source);
    const batch = columns.batch();
    for (let start = 0; start < batch.numRows; start += 512) await append(batch.slice(start, Math.min(start + 512, batch.numRows)));
    const stored = (await connection.runAndReadAll(`${READ_BACK} LIMIT 3 OFFSET 1023`)).getRowObjectsJS();
    t.deepEqual(stored, [expectedRow(rows[1_023]!), expectedRow(rows[1_024]!), expectedRow(rows[1_025]!)]);
    const [{ n }] = (await connection.runAndReadAll('SELECT count(*) AS n FROM runtime.task_history')).getRowObjectsJS() as [{ n: bigint }];
    t.is(n, 1_500n);
  });
});

test('a query\'s row is written straight into the columns: its id without dashes as trace id, its labels in order', async (t) => {
  const { writeSqlQueryRow } = await import('../../plugins/task-history/sql-task.js');
  const id = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
  const query = { id, sql: 'SELECT \uD800 1', protocol: 'http', principal: { id: 'reader' }, datasets: ['orders', 'customers'], statementType: 'SELECT', startTime: new Date(0) };
  const outcome = { status: 'error', rows: 0, executionMs: 1.23456, durationMs: 2, cacheStatus: 'MISS', endTime: new Date(1), error: { code: 'SQL_ERROR', message: 'bad' } };
  const columns = new RowColumns();
  columns.append(row(1));
  writeSqlQueryRow(columns, query as never, outcome as never, undefined, { dataset: (name) => (name === 'customers' ? { accelerated: true } as never : undefined) });
  t.is(columns.rows, 2);
  await withTable(async (connection, append) => {
    await append(columns.batch());
    const [stored] = (await connection.runAndReadAll(`SELECT trace_id, length(span_id) AS span_length, task, input, error_message, map_keys(labels) AS keys, map_values(labels) AS values FROM runtime.task_history WHERE task = 'sql_query'`)).getRowObjectsJS();
    t.deepEqual(stored, {
      trace_id: '0f1e2d3c4b5a69788796a5b4c3d2e1f0',
      span_length: 16n,
      task: 'sql_query',
      input: 'SELECT \uFFFD 1',
      error_message: 'bad',
      keys: ['protocol', 'datasets', 'rows_produced', 'query_execution_duration_ms', 'results_cache_hit', 'statement_type', 'principal', 'results_cache_status', 'accelerated', 'error_code'],
      values: ['http', 'orders,customers', '0', '1.235', 'false', 'SELECT', 'reader', 'MISS', 'true', 'SQL_ERROR'],
    });
  });
});
