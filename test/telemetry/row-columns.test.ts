import { CALLER_VARIABLE } from '../../core/engine/sandbox.js';
import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { appendBatches } from '../../core/engine/append.js';
import type { RecordBatch } from 'apache-arrow';
import { RowColumns } from '../../plugins/task-history/row-columns.js';
import { CREATE_TASK_HISTORY_STATEMENTS, retentionStatements, type TaskRow } from '../../plugins/task-history/table.js';
import { StoredIds } from '../../plugins/task-history/stored-ids.js';

// Task rows wait column by column in the compact form they are stored in (ids as integers,
// repeated text as ids into runtime.task_history_texts, a query's labels as numbers) and reach
// DuckDB through the engine's direct append; the view runtime.task_history spells them out as
// Spice's columns. Each row is read back through the view and compared with what went in.

function row(index: number): TaskRow {
  return {
    // Ids in the usual form wait as numbers; others (a caller's own, upper case, a dashed UUID) as the text given.
    traceId: index % 11 === 5 ? `trace-${index}` : index % 13 === 6 ? index.toString(16).toUpperCase().padStart(32, 'F') : index % 17 === 7 ? `0f1e2d3c-4b5a-6978-8796-${index.toString(16).padStart(12, '0')}` : index.toString(16).padStart(32, '0'),
    spanId: index % 19 === 8 ? `span ${index}` : (index * 7919).toString(16).padStart(16, 'f'),
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

/** What the plugin does through `EngineApi.appendToTable(..., { exactColumns: true })`: the batch's new shapes, its extras, then its rows. */
async function store(connection: DuckDBConnection, columns: RowColumns): Promise<number> {
  const { shapes, extras, rows } = columns.batches();
  const append = (name: string, batch: RecordBatch) => appendBatches({ connection, table: { catalog: 'memory', schema: 'runtime', name }, schema: batch.schema, batches: (async function* () { yield batch; })(), signal: new AbortController().signal, freshTable: true });
  await append('task_history_shapes', shapes);
  await append('task_history_extras', extras);
  return append('task_history_rows', rows);
}

async function withTable(run: (connection: DuckDBConnection, append: (columns: RowColumns) => Promise<number>) => Promise<void>): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const statement of CREATE_TASK_HISTORY_STATEMENTS) await connection.run(statement);
    // The view shows each caller its own rows; this connection reads as the runtime (every row).
    await connection.run(`SET VARIABLE ${CALLER_VARIABLE} = '*'`);
    await run(connection, (columns) => store(connection, columns));
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
    t.is(await append(columns), 5_000);
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
    t.is(await append(columns), 1);
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
    await append(columns);
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
    await append(columns);
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

test('query rows and other rows mixed in one batch keep their own labels, and a query\'s labels are spelled as before', async (t) => {
  const { writeSqlQueryRow } = await import('../../plugins/task-history/sql-task.js');
  const columns = new RowColumns();
  const statuses = [undefined, 'HIT', 'MISS', 'STALE', 'BYPASS'] as const;
  const expected: Array<Record<string, string> | undefined> = [];
  for (let index = 0; index < 1_000; index++) {
    if (index % 3 === 0) {
      columns.append(row(index));
      expected.push(undefined);
      continue;
    }
    const cacheStatus = statuses[index % statuses.length];
    const executionMs = [0, 5, 0.5, 12.3456, 1_234_567.8915, Number.NaN][index % 6]!;
    const protocol = index % 4 === 0 ? 'internal' : 'flight';
    const failed = index % 10 === 1;
    writeSqlQueryRow(columns, {
      id: crypto.randomUUID(), sql: `SELECT ${index % 5}`, protocol, principal: { id: `key-${index % 2}` }, datasets: index % 7 === 0 ? [] : ['orders'], statementType: 'SELECT', startTime: new Date(1_700_000_000_000 + index),
    } as never, {
      status: failed ? 'error' : 'ok', rows: index * 1_000_003, executionMs, durationMs: 1, cacheStatus, endTime: new Date(1_700_000_000_000 + index), error: failed ? { code: 'SQL_INVALID', message: 'bad' } : undefined,
    } as never, undefined, { dataset: () => ({ accelerated: index % 2 === 0 }) as never });
    const millis = Number.isFinite(executionMs) ? String(Math.round(executionMs * 1000) / 1000) : '0';
    expected.push({
      protocol,
      datasets: index % 7 === 0 ? '' : 'orders',
      rows_produced: String(index * 1_000_003),
      query_execution_duration_ms: millis,
      results_cache_hit: cacheStatus === 'HIT' || cacheStatus === 'STALE' ? 'true' : 'false',
      statement_type: 'SELECT',
      principal: `key-${index % 2}`,
      ...(cacheStatus === undefined ? {} : { results_cache_status: cacheStatus }),
      ...(index % 2 === 0 && index % 7 !== 0 ? { accelerated: 'true' } : {}),
      ...(protocol === 'internal' ? { runtime_query: 'true' } : {}),
      ...(failed ? { error_code: 'SQL_INVALID' } : {}),
    });
  }
  await withTable(async (connection, append) => {
    t.is(await append(columns), 1_000);
    const stored = (await connection.runAndReadAll('SELECT task, trace_id, span_id, map_keys(labels) AS keys, map_values(labels) AS values FROM runtime.task_history ORDER BY start_time, task DESC')).getRowObjectsJS() as Array<{ task: string; trace_id: string; span_id: string; keys: string[]; values: string[] }>;
    t.is(stored.length, 1_000);
    for (let index = 0; index < 1_000; index++) {
      const labels = expected[index];
      const got = stored[index]!;
      const gotLabels = Object.fromEntries(got.keys.map((key, at) => [key, got.values[at]]));
      if (labels === undefined) {
        if (!t.deepEqual(gotLabels, row(index).labels, `row ${index}`)) return;
        continue;
      }
      t.is(got.task, 'sql_query');
      t.regex(got.trace_id, /^[0-9a-f]{32}$/);
      t.regex(got.span_id, /^[0-9a-f]{16}$/);
      if (!t.deepEqual(got.keys, Object.keys(labels), `row ${index}: label order`) || !t.deepEqual(gotLabels, labels, `row ${index}`)) return;
    }
  });
});

test('a shape is stored once across batches, and retention deletes old rows with their extras, then only the shapes no row names', async (t) => {
  await withTable(async (connection, append) => {
    const ids = new StoredIds();
    const first = new RowColumns(ids);
    const second = new RowColumns(ids);
    const old = { ...row(2), input: 'SELECT shared', startTime: new Date(1_000), errorMessage: 'old failure', labels: { only: 'old' } };
    first.append(old);
    first.append({ ...old, input: 'SELECT only old' });
    await append(first);
    second.append({ ...old, startTime: new Date(5_000), errorMessage: undefined, labels: {} });
    t.is(second.batches().shapes.numRows, 0, 'shapes the first batch stored are named by id, not sent again');
    await append(second);
    const stored = async (table: string, column: string) => (await connection.runAndReadAll(`SELECT ${column} FROM runtime.${table} ORDER BY ALL`)).getRows().map(([value]) => value);
    t.deepEqual(await stored('task_history_shapes', 'input'), ['SELECT only old', 'SELECT shared']);
    t.is((await stored('task_history_extras', 'id')).length, 3, 'every task row has extras (its labels)');

    // Retention as the plugin runs it: forget the shapes, write what is buffered, delete.
    const boundary = ids.forget();
    const third = new RowColumns(ids);
    third.append({ ...old, startTime: new Date(9_000), input: 'SELECT shared', errorMessage: undefined, labels: {} });
    for (const { sql, parameters } of retentionStatements(new Date(2_000), boundary)) await connection.run(sql, parameters as never);
    await append(third);
    t.deepEqual(await stored('task_history_shapes', 'input'), ['SELECT shared', 'SELECT shared'], 'the shape only the deleted rows named is gone; the batch after forget() stored its shape anew');
    t.is((await stored('task_history_extras', 'id')).length, 2, 'the deleted rows\' extras went with them');
    const rows = (await connection.runAndReadAll('SELECT input, error_message, epoch_ms(start_time) AS ms FROM runtime.task_history ORDER BY start_time')).getRowObjectsJS();
    t.deepEqual(rows, [{ input: 'SELECT shared', error_message: null, ms: 5_000n }, { input: 'SELECT shared', error_message: null, ms: 9_000n }]);
  });
});
