import test from 'ava';
import { RowArena } from '../../plugins/task-history/row-arena.js';

test('rows come back as one JSON array, multi-byte text intact, across growth and reuse', (t) => {
  const arena = new RowArena();
  t.is(Buffer.from(arena.json()).toString(), '[]');
  const rows = Array.from({ length: 3_000 }, (_, index) => ({ index, text: `row ${index}: é, 漢字, 🎉 ${'x'.repeat(index % 50)}` }));
  for (const row of rows) arena.append(JSON.stringify(row));
  t.is(arena.rows, 3_000);
  t.true(arena.bytes > 64 * 1024, 'past the initial size');
  t.deepEqual(JSON.parse(Buffer.from(arena.json()).toString('utf8')), rows);

  arena.clear();
  t.is(arena.rows, 0);
  arena.append('{"a":1}');
  arena.append('{"b":"ü"}');
  t.is(Buffer.from(arena.json()).toString('utf8'), '[{"a":1},{"b":"ü"}]', 'a cleared arena starts a new array');
});

test('a row is encoded as JSON DuckDB accepts: lone surrogates become U+FFFD, other text is kept', async (t) => {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const { CREATE_TASK_HISTORY_SQL, insertStatement, rowJson } = await import('../../plugins/task-history/table.js');
  const row = {
    traceId: 'a'.repeat(32),
    spanId: 'b'.repeat(16),
    parentSpanId: undefined,
    task: 'sql_query',
    input: "SELECT '\uD800 lone, 🎉 paired, é'",
    capturedOutput: undefined,
    startTime: new Date('2026-01-02T03:04:05.678Z'),
    endTime: new Date('2026-01-02T03:04:05.789Z'),
    executionDurationMs: 111,
    errorMessage: 'bad \uDC00 end',
    labels: { protocol: 'http', 'odd\uD83D': 'value' },
  };
  const arena = new RowArena();
  arena.append(rowJson(row));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run('CREATE SCHEMA runtime');
    await connection.run(CREATE_TASK_HISTORY_SQL);
    const { sql, parameters } = insertStatement(arena.json());
    const prepared = await connection.prepare(sql);
    prepared.bindBlob(1, parameters[0] as Uint8Array);
    await prepared.run();
    const reader = await connection.runAndReadAll("SELECT input, error_message, labels['protocol'] AS protocol, map_keys(labels) AS keys, start_time::VARCHAR AS start FROM runtime.task_history");
    t.deepEqual(reader.getRowObjectsJS(), [{
      input: "SELECT '\uFFFD lone, 🎉 paired, é'",
      error_message: 'bad \uFFFD end',
      protocol: 'http',
      keys: ['protocol', 'odd\uFFFD'],
      start: '2026-01-02 03:04:05.678',
    }]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

test('rowJson writes what JSON.stringify of the row would, and never a null in a NOT NULL column', async (t) => {
  const { rowJson } = await import('../../plugins/task-history/table.js');
  const row = {
    traceId: 't', spanId: 's', parentSpanId: 'p', task: 'sql_query', input: 'SELECT "x", \'y\', \\n\n\t',
    capturedOutput: '[{"a":1}]', startTime: new Date(1_700_000_000_123), endTime: new Date(1_700_000_000_456),
    executionDurationMs: 0.1234, errorMessage: undefined, labels: { protocol: 'http', 'a "key"': 'v\u0001' },
  };
  t.deepEqual(JSON.parse(rowJson(row)), {
    trace_id: 't', span_id: 's', parent_span_id: 'p', task: 'sql_query', input: row.input, captured_output: '[{"a":1}]',
    start_us: 1_700_000_000_123_000, end_us: 1_700_000_000_456_000, execution_duration_ms: 0.1234, error_message: null,
    labels: { protocol: 'http', 'a "key"': 'v\u0001' },
  });
  t.is(JSON.parse(rowJson({ ...row, executionDurationMs: Number.NaN })).execution_duration_ms, 0);
  t.deepEqual(JSON.parse(rowJson({ ...row, labels: { 'k\uD800': '1', 'k\uDBFF': '2' } })).labels, { 'k\uFFFD': '2' }, 'keys equal once repaired are merged, not duplicated');
});
