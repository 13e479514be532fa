import test from 'ava';
import { tableFromIPC, Type, type Table } from 'apache-arrow';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { withFlight } from './flight-helpers.js';

/** Every DuckDB type a query can return (an ENUM gives a dictionary column), then a row of NULLs. */
const COLUMNS: ReadonlyArray<[string, string]> = [
  ['(i = 0)::BOOLEAN', 'boolean'], ['i::TINYINT', 'tinyint'], ['i::SMALLINT', 'smallint'], ['i::INTEGER', 'integer'],
  ['(i * 10000000000)::BIGINT', 'bigint'], ['(i::HUGEINT * 17014118346046923173168730371588410::HUGEINT)', 'hugeint'],
  ['i::UTINYINT', 'utinyint'], ['i::USMALLINT', 'usmallint'], ['i::UINTEGER', 'uinteger'], ['(i::UBIGINT * 9000000000000000000::UBIGINT)', 'ubigint'],
  ['(i + 0.5)::FLOAT', 'float'], ['(i + 0.25)::DOUBLE', 'double'], ['(i + 0.01)::DECIMAL(4, 2)', 'decimal4'],
  ['(i * 1234567.89)::DECIMAL(12, 2)', 'decimal12'], ['(i * 123456789012345678.5)::DECIMAL(38, 1)', 'decimal38'],
  ["'text ' || i", 'varchar'], ["('ab' || i::VARCHAR)::BLOB", 'blob'], ["DATE '2024-01-02' + i::INTEGER", 'date'],
  ["TIME '03:04:05.123456'", 'time'], ["TIMESTAMP '2024-01-02 03:04:05.123456' + to_hours(i)", 'timestamp'],
  ["TIMESTAMPTZ '2024-01-02 03:04:05+00'", 'timestamptz'], ["TIMESTAMP_S '2024-01-02 03:04:05'", 'timestamp_s'],
  ["TIMESTAMP_MS '2024-01-02 03:04:05.123'", 'timestamp_ms'], ["TIMESTAMP_NS '2024-01-02 03:04:05.123456789'", 'timestamp_ns'],
  ['to_days(i) + INTERVAL 3 MONTH', 'interval'], ["'6e9f4a4e-3b8c-4b8b-9c2d-6f1e2a3b4c5d'::UUID", 'uuid'],
  ['[i, i + 1]', 'list'], ["{'a': i, 'b': 'x' || i}", 'struct'], ["MAP {'k' || i: i}", 'map'],
  ["(CASE WHEN i = 0 THEN 'red' ELSE 'green' END)::ENUM('red', 'green')", 'enum'], ['[i, i, i]::BIGINT[3]', 'array'],
  ['\'{"a": 1}\'::JSON', 'json'],
];
const EVERY_TYPE = `SELECT ${COLUMNS.map(([expression, name]) => `${expression} AS ${name}`).join(', ')} FROM range(3) t(i)
UNION ALL SELECT ${COLUMNS.map(() => 'NULL').join(', ')}`;

function rows(table: Table): string {
  return JSON.stringify(table.toArray().map((row) => row.toJSON()), (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
    if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
    if (value && typeof value === 'object' && 'toJSON' in value) return (value as { toJSON(): unknown }).toJSON();
    return value;
  });
}

test('every DuckDB type arrives over Flight exactly as the HTTP Arrow output has it', async (t) => {
  await withFlight(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ client, sql }) => {
    const response = await sql(EVERY_TYPE, { accept: 'application/vnd.apache.arrow.stream' });
    t.is(response.status, 200, await response.clone().text());
    const http = tableFromIPC(new Uint8Array(await response.arrayBuffer()));
    const { table: flight } = await client.query(EVERY_TYPE);
    t.is(flight.numRows, 4);
    t.deepEqual(
      flight.schema.fields.map((field) => `${field.name}:${field.type}:${field.nullable}`),
      http.schema.fields.map((field) => `${field.name}:${field.type}:${field.nullable}`),
    );
    t.deepEqual([...flight.schema.metadata], [...http.schema.metadata]);
    t.is(rows(flight), rows(http));
    t.is(flight.schema.fields.find((field) => field.name === 'enum')?.type.typeId, Type.Dictionary, 'ENUM travels dictionary-encoded');
  });
});

test('known values survive the trip: integers, decimals, dates, timestamps, strings, nulls', async (t) => {
  await withFlight(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ client }) => {
    const { table } = await client.query(`SELECT 9007199254740993::BIGINT AS big, 12345.67::DECIMAL(12, 2) AS money, DATE '2024-02-29' AS day,
      TIMESTAMP '2024-01-02 03:04:05.123' AS at, 'héllo ☃' AS text, NULL::VARCHAR AS nothing, true AS yes`);
    const row = table.get(0)!.toJSON();
    t.is(row['big'], 9007199254740993n);
    t.is(String(row['money']), '1234567', 'decimals arrive as their unscaled integer with scale 2');
    t.is(new Date(row['day'] as number).toISOString().slice(0, 10), '2024-02-29');
    t.is(new Date(Number(row['at'])).toISOString(), '2024-01-02T03:04:05.123Z');
    t.is(row['text'], 'héllo ☃');
    t.is(row['nothing'], null);
    t.is(row['yes'], true);
  });
});
