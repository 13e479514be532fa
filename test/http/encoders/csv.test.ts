import { isUtf8 } from 'node:buffer';
import { DuckDBInstance, DuckDBTypeId, type DuckDBConnection } from '@duckdb/node-api';
import test from 'ava';
import { encodeCsv } from '../../../core/http/encoders/index.js';
import { createEveryTypeEnums, everyTypeQuery } from '../../engine/arrow/helpers/every-type-query.js';
import { concat, inputFor } from './helpers/encode.js';
import { JsonNumber, parseExactJson, type ExactJson } from './helpers/exact-json.js';
import { expectedJson } from './helpers/expected-json.js';
import { parseCsv, type CsvField } from './helpers/parse-csv.js';

let instance: DuckDBInstance;
const connect = (): Promise<DuckDBConnection> => instance.connect();

test.before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  await createEveryTypeEnums(await connect());
});

async function csvOf(connection: DuckDBConnection, sql: string, options?: { targetRowsPerBatch?: number; chunkBytes?: number; header?: boolean }): Promise<string> {
  const { body } = await concat(encodeCsv(await inputFor(connection, sql, options), options));
  if (!isUtf8(body)) throw new Error('CSV output is not valid UTF-8');
  return body.toString('utf8');
}

/**
 * A CSV field compared with the JSON value expected for the same cell: NULL is an empty
 * unquoted field; strings and temporal values are their text; numbers their digits;
 * nested values their JSON text.
 */
function fieldMatches(field: CsvField, expected: ExactJson, nested: boolean): boolean {
  if (expected === null) return field.text === '' && !field.quoted;
  if (nested) return JSON.stringify(parseExactJson(field.text)) === JSON.stringify(expected);
  if (expected instanceof JsonNumber) return field.text === expected.text;
  if (typeof expected === 'boolean') return field.text === String(expected);
  if (typeof expected === 'string') return field.text === expected && (expected !== '' || field.quoted);
  return JSON.stringify(parseExactJson(field.text)) === JSON.stringify(expected);
}

const NESTED = new Set([DuckDBTypeId.LIST, DuckDBTypeId.ARRAY, DuckDBTypeId.STRUCT, DuckDBTypeId.MAP, DuckDBTypeId.INTERVAL, DuckDBTypeId.VARIANT]);

async function assertCsvMatchesDuckDB(t: import('ava').ExecutionContext, connection: DuckDBConnection, sql: string, options?: { targetRowsPerBatch?: number; chunkBytes?: number }) {
  const records = parseCsv(await csvOf(connection, sql, options));
  const reference = await connection.run(sql);
  const names = reference.columnNames();
  const types = reference.columnTypes();
  const rows = await reference.getRows();
  t.deepEqual(records[0]!.map((field) => field.text), names);
  t.is(records.length, rows.length + 1);
  for (let c = 0; c < names.length; c++) {
    const type = types[c]!;
    const nested = NESTED.has(type.typeId) || (type.typeId === DuckDBTypeId.VARCHAR && type.alias === 'JSON');
    const bad = rows.findIndex((row, r) => {
      const value = row[c]!;
      // CSV has no null/number distinction to protect: non-finite floats are their names.
      if (typeof value === 'number' && !Number.isFinite(value)) return records[r + 1]![c]!.text !== String(value);
      const expected = expectedJson(value, type);
      // A union renders its member: nested when the member value is.
      const memberNested = expected !== null && typeof expected === 'object' && !(expected instanceof JsonNumber);
      return !fieldMatches(records[r + 1]![c]!, expected, nested || memberNested);
    });
    if (bad >= 0) t.fail(`column ${names[c]} (${String(type)}) row ${bad}: ${JSON.stringify(records[bad + 1]![c])} vs ${JSON.stringify(expectedJson(rows[bad]![c]!, type))}`);
  }
}

test('every DuckDB type encodes to the documented CSV fields, NULLs included', async (t) => {
  await assertCsvMatchesDuckDB(t, await connect(), everyTypeQuery(2000));
  t.pass();
});

test('every type across small batches and small chunks', async (t) => {
  await assertCsvMatchesDuckDB(t, await connect(), everyTypeQuery(700), { targetRowsPerBatch: 100, chunkBytes: 2048 });
  t.pass();
});

test('quoting: commas, quotes, CR, LF; empty string differs from NULL', async (t) => {
  const text = await csvOf(await connect(), `SELECT * FROM (VALUES ('a,b', 'say "hi"', 'line1' || chr(10) || 'line2', 'cr' || chr(13), '', NULL, 'plain', ' spaced ')) t("col,1", "c""2", c3, c4, c5, c6, c7, c8)`);
  t.is(text, '"col,1","c""2",c3,c4,c5,c6,c7,c8\r\n"a,b","say ""hi""","line1\nline2","cr\r","",,plain, spaced \r\n');
});

test('numbers, temporal values and non-finite floats', async (t) => {
  const text = await csvOf(await connect(), `SELECT 9007199254740993::BIGINT AS a, -1.50::DECIMAL(5,2) AS b, 'nan'::DOUBLE AS c, 'inf'::DOUBLE AS d, '-inf'::FLOAT AS e,
    DATE '2024-01-31' AS f, TIMESTAMPTZ '2024-01-31 12:00:00+00' AS g, true AS h, [1, 2] AS i, {'k': 'v,w'} AS j`);
  t.is(text, 'a,b,c,d,e,f,g,h,i,j\r\n9007199254740993,-1.50,NaN,Infinity,-Infinity,2024-01-31,2024-01-31T12:00:00Z,true,"[1,2]","{""k"":""v,w""}"\r\n');
});

test('an empty result is the header alone; without header it is empty', async (t) => {
  const connection = await connect();
  t.is(await csvOf(connection, 'SELECT 1 AS a, 2 AS b WHERE false'), 'a,b\r\n');
  t.is(await csvOf(connection, 'SELECT 1 AS a, 2 AS b WHERE false', { header: false }), '');
});

test('invalid UTF-8 in a Utf8 column is replaced by U+FFFD, and the field still quoted when needed', async (t) => {
  const { Field, makeData, RecordBatch, Schema, Struct, Utf8 } = await import('apache-arrow');
  const { inputOf } = await import('./helpers/encode.js');
  const column = makeData({ type: new Utf8(), length: 2, valueOffsets: Int32Array.from([0, 3, 7]), data: Buffer.from([0x61, 0xff, 0x62, 0x2c, 0xc3, 0x28, 0x22]) });
  const schema = new Schema([new Field('s', new Utf8())]);
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 2, children: [column] }));
  const { body } = await concat(encodeCsv(inputOf(schema, [batch])));
  t.true(isUtf8(body));
  t.is(body.toString('utf8'), 's\r\na\uFFFDb\r\n",\uFFFD("""\r\n');
});
