import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Data } from 'apache-arrow';
import test from 'ava';
import { BatchAssembler, arrowSchemaFor, openBatchStream, streamRecordBatches } from '../../../core/engine/arrow/index.js';
import { arrowRows, assertMatchesDuckDB, collect } from './helpers/compare.js';

let instance: DuckDBInstance;
const connect = (): Promise<DuckDBConnection> => instance.connect();

test.before(async () => {
  instance = await DuckDBInstance.create(':memory:');
});

const utf8 = (data: Data, row: number): string => {
  const offsets = data.valueOffsets as Int32Array;
  return Buffer.from((data.values as Uint8Array).subarray(offsets[row]!, offsets[row + 1]!)).toString('utf8');
};

test('an empty result has its schema and no batches', async (t) => {
  const connection = await connect();
  const sql = "SELECT 1::INTEGER AS a, 'x' AS b, [1] AS c FROM range(10) WHERE false";
  const { schema, batches } = await collect(connection, sql);
  t.deepEqual(schema.fields.map((field) => `${field.name}:${field.type}`), ['a:Int32', 'b:Utf8', 'c:List<Int32>']);
  t.is(batches.length, 0);
  const opened = await openBatchStream(await connection.stream(sql));
  const fromOpened = [];
  for await (const batch of opened.batches) fromOpened.push(batch);
  t.is(fromOpened.length, 0);
});

test('200k rows over many chunks coalesce into 65,536-row batches with exact values', async (t) => {
  const connection = await connect();
  const sql = `SELECT i::BIGINT AS id, (i * 2)::INTEGER AS twice, 's' || i AS label,
    CASE WHEN i % 10 = 0 THEN NULL ELSE i % 3 = 0 END AS flag FROM range(200000) t(i) ORDER BY i`;
  const { batches } = await collect(connection, sql);
  t.deepEqual(batches.map((batch) => batch.numRows), [65536, 65536, 65536, 3392]);
  let row = 0;
  let mismatches = 0;
  for (const batch of batches) {
    const [id, twice, label, flag] = batch.data.children as [Data, Data, Data, Data];
    for (let r = 0; r < batch.numRows; r++, row++) {
      const flagValue = flag.getValid(r) ? ((flag.values[(flag.offset + r) >> 3]! >> ((flag.offset + r) & 7)) & 1) === 1 : null;
      const expectedFlag = row % 10 === 0 ? null : row % 3 === 0;
      if (id.values[r] !== BigInt(row) || twice.values[r] !== row * 2 || utf8(label, r) !== `s${row}` || flagValue !== expectedFlag) mismatches++;
    }
  }
  t.is(row, 200000);
  t.is(mismatches, 0);
});

test('batches are also cut by size', async (t) => {
  const connection = await connect();
  const sql = "SELECT repeat('x', 100) || i AS wide FROM range(50000) t(i)";
  const { batches } = await collect(connection, sql, { targetBytesPerBatch: 1024 * 1024 });
  t.true(batches.length >= 4, `${batches.length} batches`);
  t.is(batches.reduce((sum, batch) => sum + batch.numRows, 0), 50000);
  for (const batch of batches.slice(0, -1)) t.true(batch.data.children[0]!.byteLength < 1.5 * 1024 * 1024);
});

test('strings: short, long, empty, non-ASCII, NULL, computed and stored, constant and repeated', async (t) => {
  const connection = await connect();
  await connection.run(`CREATE TABLE words AS SELECT i, CASE i % 6
      WHEN 0 THEN 'short' || i WHEN 1 THEN 'a string long enough to leave the inline area ' || i
      WHEN 2 THEN '' WHEN 3 THEN NULL WHEN 4 THEN '日本語のテキスト、とても長い文字列です ' || i
      ELSE 'exactly12chr' END AS s FROM range(10000) t(i)`);
  await assertMatchesDuckDB(t, connection, 'SELECT s FROM words ORDER BY i');
  await assertMatchesDuckDB(t, connection, "SELECT CASE WHEN i % 2 = 0 THEN 'the same long constant string A' ELSE 'the same long constant string B' END AS s FROM range(5000) t(i)");
  await assertMatchesDuckDB(t, connection, "SELECT s FROM words WHERE i % 5 <> 0 ORDER BY i DESC");
  await assertMatchesDuckDB(t, connection, "SELECT repeat('🙂', (i % 40)::INTEGER) AS s, repeat('z', (i % 3000)::INTEGER) AS big FROM range(4000) t(i)");
});

test('decimals of every width, negative and NULL, and 64-bit integers beyond 2^53', async (t) => {
  const connection = await connect();
  const { batches } = await collect(connection, `SELECT * FROM (VALUES
    (-12.34::DECIMAL(4,2), -123456.789::DECIMAL(9,3), -123456789012.345678::DECIMAL(18,6), -1234567890123456789012345678.9012345678::DECIMAL(38,10), '-9223372036854775808'::BIGINT, 18446744073709551615::UBIGINT),
    (NULL, NULL, NULL, NULL, NULL, NULL),
    (0.01::DECIMAL(4,2), 0.001::DECIMAL(9,3), 999999999999.999999::DECIMAL(18,6), '9999999999999999999999999999.9999999999'::DECIMAL(38,10), 9007199254740993::BIGINT, 9007199254740993::UBIGINT)
  ) t(d4, d9, d18, d38, big, ubig)`);
  const rows = arrowRows(batches);
  t.deepEqual(rows[0], ['-1234', '-123456789', '-123456789012345678', '-12345678901234567890123456789012345678', '-9223372036854775808', '18446744073709551615']);
  t.deepEqual(rows[1], [null, null, null, null, null, null]);
  t.is(rows[2]![0], '1');
  t.is(rows[2]![1], '1');
  t.is(rows[2]![2], '999999999999999999');
  t.is(rows[2]![3], '99999999999999999999999999999999999999');
  t.is(rows[2]![4], '9007199254740993');
  await assertMatchesDuckDB(t, connection, `SELECT (i - 500)::DECIMAL(4,1) / 7 AS a, ((i - 500) * 1000003)::DECIMAL(9,0) AS b,
    ((i - 500) * 10000000007)::DECIMAL(18,2) AS c, ((i - 500)::HUGEINT * 100000000000000000000000)::DECIMAL(38,3) AS d FROM range(1000) t(i)`);
});

test('timestamps and dates before 1970, at the epoch, and far away', async (t) => {
  const connection = await connect();
  await assertMatchesDuckDB(t, connection, `SELECT * FROM (VALUES
    (DATE '1969-12-31', TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP_NS '1901-01-01 00:00:00.000000001', TIMESTAMPTZ '1950-06-01 12:00:00+02'),
    (DATE '1970-01-01', TIMESTAMP '1970-01-01 00:00:00', TIMESTAMP_NS '1970-01-01 00:00:00', TIMESTAMPTZ '1970-01-01 00:00:00+00'),
    (DATE '0001-01-01', TIMESTAMP '0001-01-01 00:00:00', TIMESTAMP_NS '2262-04-11 00:00:00', TIMESTAMPTZ '9999-12-31 23:59:59+00'),
    (DATE 'infinity', TIMESTAMP '-infinity', NULL, NULL)) t(d, ts, tns, tz)`);
});

test('nested: list of struct, map, list of lists, struct of lists, arrays, unions with NULLs at every level', async (t) => {
  const connection = await connect();
  await assertMatchesDuckDB(t, connection, `SELECT
    CASE WHEN i % 5 = 0 THEN NULL ELSE [{'id': i, 'tags': ['a', NULL, 'a long tag value beyond twelve'][1:(i % 4)::INTEGER]}, NULL] END AS list_of_struct,
    CASE WHEN i % 4 = 0 THEN NULL ELSE MAP {'k' || i: [i], 'other': NULL} END AS map_of_list,
    [[i, NULL], NULL, []] AS list_of_lists,
    {'xs': [i, i], 'm': MAP {i: i % 2 = 0}} AS struct_of_list,
    [[i, i], [NULL, i]]::INTEGER[2][2] AS array_of_array,
    [{'a': i}, NULL]::STRUCT(a INTEGER)[2] AS array_of_struct,
    CASE WHEN i % 3 = 0 THEN NULL WHEN i % 3 = 1 THEN [i]::UNION(l BIGINT[], s VARCHAR) ELSE 'str'::UNION(l BIGINT[], s VARCHAR) END AS union_with_list
    FROM range(3000) t(i)`);
});

test('the same list value repeated on every row (constant vectors) converts correctly', async (t) => {
  const connection = await connect();
  await assertMatchesDuckDB(t, connection, "SELECT [1, 2, 3] AS l, {'a': 'a long constant string inside a struct'} AS s, MAP {'x': 1} AS m FROM range(5000)");
  await assertMatchesDuckDB(t, connection, 'SELECT list(i) OVER (ORDER BY i ROWS BETWEEN 3 PRECEDING AND CURRENT ROW) AS w FROM range(5000) t(i)');
});

test('materialised results (run) stream the same way', async (t) => {
  const connection = await connect();
  const { schema, batches } = streamRecordBatches(await connection.run("SELECT i, 'v' || i AS v FROM range(5000) t(i)"));
  t.is(schema.fields.length, 2);
  let rows = 0;
  for await (const batch of batches) rows += batch.numRows;
  t.is(rows, 5000);
});

test('openBatchStream rejects before the first batch when the query fails at once', async (t) => {
  const connection = await connect();
  await t.throwsAsync(async () => openBatchStream(await connection.stream("SELECT error('boom') AS x FROM range(3)")), { message: /boom/ });
});

test('an aborted signal stops fetching', async (t) => {
  const connection = await connect();
  const controller = new AbortController();
  const { batches } = streamRecordBatches(await connection.stream('SELECT i FROM range(1000000) t(i)'), { signal: controller.signal, targetRowsPerBatch: 2048 });
  let seen = 0;
  await t.throwsAsync(async () => {
    for await (const batch of batches) {
      seen += batch.numRows;
      controller.abort();
    }
  }, { any: true, name: 'AbortError' });
  t.true(seen > 0 && seen < 1000000);
});

test('BatchAssembler takes chunks directly and flushes the tail', async (t) => {
  const connection = await connect();
  const result = await connection.stream('SELECT i AS n FROM range(5000) t(i)');
  const assembler = new BatchAssembler(arrowSchemaFor(result), result.columnTypes(), { targetRowsPerBatch: 3000 });
  const sizes: number[] = [];
  for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    for (const batch of assembler.append(chunk)) sizes.push(batch.numRows);
  }
  t.is(assembler.pendingRows, 2000);
  sizes.push(assembler.flush()!.numRows);
  t.deepEqual(sizes, [3000, 2000]);
  t.is(assembler.flush(), null);
});

test('stopping early ends the stream cleanly and the connection serves the next query', async (t) => {
  const connection = await connect();
  const { batches } = streamRecordBatches(await connection.stream('SELECT i FROM range(10000000) t(i)'), { targetRowsPerBatch: 2048 });
  for await (const batch of batches) {
    t.is(batch.numRows, 2048);
    break;
  }
  t.deepEqual(await (await connection.run('SELECT 42 AS x')).getRowsJS(), [[42]]);
});

test('a chunk of huge strings is cut into batches of about 16 MiB, one row at least, values whole', async (t) => {
  const connection = await connect();
  // 10 rows of 6 MB each: one engine chunk of 60 MB.
  const { batches } = await collect(connection, "SELECT i::INTEGER AS id, repeat(chr(65 + i::INTEGER), 6000000) AS big FROM range(10) t(i) ORDER BY i");
  t.deepEqual(batches.map((batch) => batch.numRows), [2, 2, 2, 2, 2], 'two 6 MB rows fit under 16 MiB, a third does not');
  let row = 0;
  for (const batch of batches) {
    const [, big] = batch.data.children as [Data, Data];
    for (let r = 0; r < batch.numRows; r++, row++) {
      const text = utf8(big, r);
      t.true(text.length === 6_000_000 && text[0] === String.fromCharCode(65 + row) && text.at(-1) === String.fromCharCode(65 + row), `row ${row} whole`);
    }
  }
  const single = await collect(connection, "SELECT repeat('x', 20000000) AS big FROM range(3)");
  t.deepEqual(single.batches.map((batch) => batch.numRows), [1, 1, 1], 'a value above 16 MiB makes a batch of its own');
});

test('a value longer than maxValueBytes fails the result with RESULT_VALUE_TOO_LARGE naming its column, nested values too', async (t) => {
  const connection = await connect();
  const read = async (sql: string) => {
    const { batches } = await openBatchStream(await connection.stream(sql), { maxValueBytes: 1000 });
    for await (const batch of batches) void batch;
  };
  const top = await t.throwsAsync(read("SELECT 'short' AS fine, repeat('x', 1001) AS long_one"));
  t.is((top as { code?: string }).code, 'RESULT_VALUE_TOO_LARGE');
  t.regex(top!.message, /^column "long_one" has a value of 1001 bytes; a result value may be at most 1000 bytes \(runtime\.query\.max_value_size\)/);
  const nested = await t.throwsAsync(read("SELECT [repeat('y', 2000)] AS listed"));
  t.is((nested as { code?: string }).code, 'RESULT_VALUE_TOO_LARGE');
  t.regex(nested!.message, /column "listed" has a value of 2000 bytes/);
  await t.notThrowsAsync(read("SELECT repeat('x', 1000) AS exactly_at_the_limit, NULL::VARCHAR AS nothing"));
});
