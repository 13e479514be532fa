import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tableFromIPC, tableToIPC, Table, Type } from 'apache-arrow';
import test from 'ava';
import { arrowRows, assertMatchesDuckDB, collect } from './helpers/compare.js';
import { createEveryTypeEnums, everyTypeColumns, everyTypeQuery } from './helpers/every-type-query.js';

let instance: DuckDBInstance;

// One connection per test: a connection runs one query at a time, and starting another
// closes a streaming result that is still being read.
async function connect(): Promise<DuckDBConnection> {
  return instance.connect();
}

test.before(async () => {
  instance = await DuckDBInstance.create(':memory:');
  await createEveryTypeEnums(await connect());
});

test('every DuckDB type, with NULLs in each, matches node-api values cell by cell', async (t) => {
  const connection = await connect();
  const batches = await assertMatchesDuckDB(t, connection, everyTypeQuery(3000));
  t.is(batches.length, 1);
  const batch = batches[0]!;
  // Every column has NULLs (row i is NULL in column k when i % 7 == k % 7) except the union,
  // whose nulls live in its members.
  batch.data.children.forEach((column, k) => {
    if (column.type.typeId !== Type.Union) t.true(column.nullCount > 0, `column ${k} has nulls`);
  });
});

test('every type survives small batches whose cuts fall inside chunks', async (t) => {
  const connection = await connect();
  const batches = await assertMatchesDuckDB(t, connection, everyTypeQuery(5000), { targetRowsPerBatch: 1000 });
  t.deepEqual(batches.map((batch) => batch.numRows), [1000, 1000, 1000, 1000, 1000]);
});

test('the schema maps each DuckDB type to the documented Arrow type', async (t) => {
  const connection = await connect();
  const { schema } = await collect(connection, everyTypeQuery(1));
  const types = Object.fromEntries(schema.fields.map((field) => [field.name, String(field.type)]));
  t.like(types, {
    c_boolean: 'Bool', c_tinyint: 'Int8', c_smallint: 'Int16', c_integer: 'Int32', c_bigint: 'Int64',
    c_utinyint: 'Uint8', c_usmallint: 'Uint16', c_uinteger: 'Uint32', c_ubigint: 'Uint64',
    c_hugeint: 'Decimal[38e0]', c_uhugeint: 'Decimal[39e0]', c_float: 'Float32', c_double: 'Float64',
    c_decimal_4_2: 'Decimal[4e+2]', c_decimal_38_10: 'Decimal[38e+10]', c_varchar: 'Utf8', c_json: 'Utf8',
    c_blob: 'Binary', c_date: 'Date32<DAY>', c_time: 'Time64<MICROSECOND>', c_time_ns: 'Time64<NANOSECOND>',
    c_time_tz: 'Utf8', c_timestamp: 'Timestamp<MICROSECOND>', c_timestamp_s: 'Timestamp<SECOND>',
    c_timestamp_ms: 'Timestamp<MILLISECOND>', c_timestamp_ns: 'Timestamp<NANOSECOND>',
    c_timestamptz: 'Timestamp<MICROSECOND, UTC>', c_interval: 'Interval<MONTH_DAY_NANO>', c_uuid: 'Utf8',
    c_enum: 'Dictionary<Uint8, Utf8>', c_enum_wide: 'Dictionary<Uint16, Utf8>', c_list: 'List<Int64>',
    c_array: 'FixedSizeList[3]<Int32>', c_map: 'Map<{key:Utf8, value:Int64}>', c_union: 'Union<Int32 | Utf8>',
    c_bit: 'Utf8', c_bignum: 'Utf8', c_geometry: 'Binary', c_variant: 'Utf8',
  });
  const metadata = (name: string) => schema.fields.find((field) => field.name === name)!.metadata;
  t.is(metadata('c_json').get('ARROW:extension:name'), 'arrow.json');
  t.is(metadata('c_variant').get('ARROW:extension:name'), 'arrow.json');
  t.is(metadata('c_geometry').get('ARROW:extension:name'), 'geoarrow.wkb');
  t.is(metadata('c_uuid').get('duckdb:type'), 'UUID');
  t.is(metadata('c_decimal_9_3').get('duckdb:type'), 'DECIMAL(9,3)');
  t.is(schema.fields.length, everyTypeColumns.length);
});

test('batches of every type round-trip through Arrow IPC and apache-arrow reads them back', async (t) => {
  const connection = await connect();
  const { schema, batches } = await collect(connection, everyTypeQuery(700), { targetRowsPerBatch: 300 });
  const table = new Table(schema, batches);
  const reread = tableFromIPC(tableToIPC(table, 'stream'));
  t.is(reread.numRows, 700);
  t.deepEqual(arrowRows(reread.batches), arrowRows(batches));
});

test('values readable through apache-arrow getters', async (t) => {
  const connection = await connect();
  const { batches } = await collect(connection, `SELECT 9007199254740993::BIGINT AS big, -9007199254740993::BIGINT AS negative,
    DATE '1969-12-31' AS before_epoch, TIMESTAMP '1960-06-01 12:00:00.5' AS old, 'héllo wörld, a longer string' AS text,
    'ok'::mood AS mood, [1, 2]::INTEGER[] AS list, {'x': 1} AS struct, true AS flag`);
  const batch = batches[0]!;
  t.is(batch.getChild('big')!.get(0), 9007199254740993n);
  t.is(batch.getChild('negative')!.get(0), -9007199254740993n);
  t.is(batch.getChild('before_epoch')!.get(0), -86_400_000);
  t.is(batch.getChild('old')!.get(0), Date.UTC(1960, 5, 1, 12, 0, 0, 500));
  t.is(batch.getChild('text')!.get(0), 'héllo wörld, a longer string');
  t.is(batch.getChild('flag')!.get(0), true);
  t.deepEqual(Array.from(batch.getChild('list')!.get(0)!.toArray() as Int32Array), [1, 2]);
  t.deepEqual(batch.getChild('struct')!.get(0)!.toJSON(), { x: 1 });
});
