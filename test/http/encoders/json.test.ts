import { isUtf8 } from 'node:buffer';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Field, makeData, Null, RecordBatch, Schema, Struct, Utf8, type Data } from 'apache-arrow';
import test from 'ava';
import { encodeJson } from '../../../core/http/encoders/index.js';
import { createEveryTypeEnums, everyTypeQuery } from '../../engine/arrow/helpers/every-type-query.js';
import { concat, inputFor, inputOf } from './helpers/encode.js';
import { num, parseExactJson, type ExactJson } from './helpers/exact-json.js';
import { expectedJson } from './helpers/expected-json.js';

let instance: DuckDBInstance;
const connect = (): Promise<DuckDBConnection> => instance.connect();

test.before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  await createEveryTypeEnums(await connect());
});

async function jsonOf(connection: DuckDBConnection, sql: string, options?: { targetRowsPerBatch?: number; chunkBytes?: number }): Promise<string> {
  const { body } = await concat(encodeJson(await inputFor(connection, sql, options), options));
  assertUtf8(body);
  return body.toString('utf8');
}

function assertUtf8(body: Buffer): void {
  if (!isUtf8(body)) throw new Error('encoder output is not valid UTF-8');
}

/** Parses our output and DuckDB's own values for the same query, and compares every cell. */
async function assertJsonMatchesDuckDB(t: import('ava').ExecutionContext, connection: DuckDBConnection, sql: string, options?: { targetRowsPerBatch?: number; chunkBytes?: number }) {
  const text = await jsonOf(connection, sql, options);
  JSON.parse(text); // must be plain valid JSON too
  const actual = parseExactJson(text) as { [key: string]: ExactJson }[];
  const reference = await connection.run(sql);
  const names = reference.columnNames();
  const types = reference.columnTypes();
  const rows = await reference.getRows();
  t.is(actual.length, rows.length);
  for (let c = 0; c < names.length; c++) {
    const name = names[c]!;
    const bad = rows.findIndex((row, r) => JSON.stringify(actual[r]?.[name]) !== JSON.stringify(expectedJson(row[c]!, types[c]!)));
    if (bad >= 0) t.deepEqual(actual[bad]![name], expectedJson(rows[bad]![c]!, types[c]!), `column ${name} (${String(types[c])}) row ${bad}`);
  }
  t.deepEqual(Object.keys(actual[0] ?? {}), rows.length > 0 ? names : []);
}

test('every DuckDB type encodes to the documented JSON, NULLs included', async (t) => {
  await assertJsonMatchesDuckDB(t, await connect(), everyTypeQuery(2000));
});

test('every type across many small batches and small output chunks', async (t) => {
  await assertJsonMatchesDuckDB(t, await connect(), everyTypeQuery(1500), { targetRowsPerBatch: 128, chunkBytes: 4096 });
});

test('an empty result is []', async (t) => {
  t.is(await jsonOf(await connect(), 'SELECT 1 AS a, [1] AS b FROM range(3) WHERE false'), '[]');
});

test('exact text of common values', async (t) => {
  const text = await jsonOf(await connect(), `SELECT 9007199254740993::BIGINT AS big, -9223372036854775807::BIGINT AS min,
    18446744073709551615::UBIGINT AS umax, 170141183460469231731687303715884105727::HUGEINT AS huge,
    -0.05::DECIMAL(4,2) AS small_dec, 12345678901234567890.123456::DECIMAL(38,6) AS big_dec, 1.5::DOUBLE AS d, 1e300::DOUBLE AS e,
    DATE '1969-07-20' AS date, TIMESTAMP '1969-07-20 20:17:40.5' AS ts, TIMESTAMPTZ '2024-01-31 12:34:56.123456+00' AS tz,
    TIME '23:59:59.999999' AS t, INTERVAL '1 year 2 days 3.5 seconds' AS iv, true AS b, NULL AS n, 'say "hi"\\' AS s`);
  t.is(text, '[{"big":9007199254740993,"min":-9223372036854775807,"umax":18446744073709551615,"huge":170141183460469231731687303715884105727,'
    + '"small_dec":-0.05,"big_dec":12345678901234567890.123456,"d":1.5,"e":1e+300,"date":"1969-07-20","ts":"1969-07-20T20:17:40.5",'
    + '"tz":"2024-01-31T12:34:56.123456Z","t":"23:59:59.999999","iv":{"months":12,"days":2,"nanoseconds":3500000000},"b":true,"n":null,"s":"say \\"hi\\"\\\\"}]');
});

test('NaN and infinities become null and the output stays valid JSON', async (t) => {
  const text = await jsonOf(await connect(), "SELECT 'nan'::DOUBLE AS a, 'inf'::DOUBLE AS b, '-inf'::FLOAT AS c, 0.1::FLOAT AS d, 'infinity'::DATE AS e, '-infinity'::TIMESTAMP AS f");
  t.deepEqual(JSON.parse(text), [{ a: null, b: null, c: null, d: 0.1, e: 'infinity', f: '-infinity' }]);
});

test('string escaping: quotes, backslashes, every control character, unicode and emoji', async (t) => {
  const connection = await connect();
  const sql = "SELECT chr(i::INTEGER) || 'x\"\\\\y' || chr(10) || 'é日🙂' AS s FROM range(1, 200) t(i)";
  const text = await jsonOf(connection, sql);
  const expected = ((await (await connection.run(sql)).getRows()) as string[][]).map(([s]) => ({ s }));
  t.deepEqual(JSON.parse(text), expected);
  t.false(/[\u0000-\u001f]/.test(text), 'no raw control characters');
  t.true(text.includes('\\u0001') && text.includes('\\n') && text.includes('\\t') && text.includes('\\u001f'));
});

test('invalid UTF-8 bytes in a Utf8 column are replaced, not passed through or fatal', async (t) => {
  const bytes = Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x28, 0x63, 0xe2, 0x82]);
  const column = makeData({ type: new Utf8(), length: 3, valueOffsets: Int32Array.from([0, 3, 6, 8]), data: bytes });
  const schema = new Schema([new Field('s', new Utf8())]);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 3, children: [column] }));
  const { body } = await concat(encodeJson(inputOf(schema, [batch])));
  t.true(isUtf8(body));
  t.deepEqual(JSON.parse(body.toString('utf8')), [{ s: 'a\uFFFDb' }, { s: '\uFFFD(c' }, { s: '\uFFFD' }]);
});

test('duplicate and unusual column names become distinct, escaped keys', async (t) => {
  const text = await jsonOf(await connect(), 'SELECT 1 AS a, 2 AS a, 3 AS "we""ird\\name", 4 AS "ключ"');
  t.deepEqual(JSON.parse(text), [{ a: 1, 'a:1': 2, 'we"ird\\name': 3, ключ: 4 }]);
});

test('output is chunked and the first chunk comes before the last batch is read', async (t) => {
  const connection = await connect();
  const input = await inputFor(connection, "SELECT i, repeat('x', 50) AS pad FROM range(100000) t(i)", { targetRowsPerBatch: 10000 });
  let batchesRead = 0;
  const counted = {
    schema: input.schema,
    batches: (async function* () {
      for await (const batch of input.batches) {
        batchesRead++;
        yield batch;
      }
    })(),
  };
  const readAtChunk: number[] = [];
  const sizes: number[] = [];
  for await (const chunk of encodeJson(counted, { chunkBytes: 64 * 1024 })) {
    readAtChunk.push(batchesRead);
    sizes.push(chunk.length);
  }
  t.is(readAtChunk[0], 1);
  t.is(batchesRead, 10);
  t.true(sizes.length > 50);
  // At most a chunk each; areas are split evenly, so pieces stay well above tiny.
  t.true(sizes.every((size) => size <= 64 * 1024), String(sizes.slice(0, 5)));
  t.true(sizes.slice(0, -1).every((size) => size >= 8 * 1024), String(sizes.slice(0, 5)));
  t.true([...sizes].sort((a, b) => a - b)[sizes.length >> 1]! > 32 * 1024);
});

test('sliced batches and Arrow types the engine does not produce', async (t) => {
  const { Table, makeVector, vectorFromArray, DateMillisecond, TimeMillisecond, LargeUtf8, DenseUnion, Int32, FixedSizeBinary, DurationMillisecond } = await import('apache-arrow');
  const table = new Table({
    id: makeVector(Int32Array.from([1, 2, 3, 4])),
    date64: vectorFromArray([Date.UTC(2024, 0, 31), null, 0, -86400000], new DateMillisecond()),
    time32: vectorFromArray([1000, 61001, null, 0], new TimeMillisecond()),
    large: vectorFromArray(['a', null, 'ü"', ''], new LargeUtf8()),
    fixed: vectorFromArray([Uint8Array.of(1, 2), Uint8Array.of(255, 0), null, Uint8Array.of(0, 0)], new FixedSizeBinary(2)),
    duration: vectorFromArray([1n, -2n, null, 9007199254740993n], new DurationMillisecond()),
  });
  const unionChildren: Data[] = [makeData({ type: new Int32(), length: 2, data: Int32Array.from([7, 8]) }), makeData({ type: new Utf8(), length: 2, valueOffsets: Int32Array.from([0, 1, 3]), data: Buffer.from('xyz') })];
  const union = makeData({ type: new DenseUnion([0, 1], [new Field('i', new Int32()), new Field('s', new Utf8())]), length: 4, typeIds: Int8Array.from([0, 1, 1, 0]), valueOffsets: Int32Array.from([0, 0, 1, 1]), children: unionChildren });
  const nothing = makeData({ type: new Null(), length: 4 });
  const schema = new Schema([...table.schema.fields, new Field('union', union.type), new Field('nothing', nothing.type)]);
  const data = makeData({ type: new Struct(schema.fields), length: 4, children: [...table.batches[0]!.data.children, union, nothing] });
  const batch = new RecordBatch(schema, data);
  const { body } = await concat(encodeJson(inputOf(schema, [batch.slice(1, 3)])));
  t.deepEqual(parseExactJson(body.toString()), [
    { id: num(2), date64: null, time32: '00:01:01.001', large: null, fixed: '/wA=', duration: num(-2), union: 'x', nothing: null },
    { id: num(3), date64: '1970-01-01', time32: null, large: 'ü"', fixed: null, duration: null, union: 'yz', nothing: null },
  ]);
});
