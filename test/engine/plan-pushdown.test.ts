import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { plannedScans } from '../../core/engine/fetch/plan-pushdown.js';
import { quoteLiteral } from '../../core/engine/sql-text.js';

// Real DuckDB plans of queries over a parquet stub, as the engine makes them for live datasets.
let directory: string;
let stub: string;
let instance: DuckDBInstance;
let connection: DuckDBConnection;

test.before(async () => {
  directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-plan-'));
  stub = path.join(directory, 'stub.parquet');
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run(`CREATE TABLE shape (id INTEGER, name VARCHAR, amount DECIMAL(10,2), day DATE, stamp TIMESTAMP, big BIGINT, flag BOOLEAN)`);
  await connection.run(`COPY shape TO ${quoteLiteral(stub)} (FORMAT parquet)`);
  await connection.run(`CREATE VIEW live AS SELECT * FROM read_parquet(${quoteLiteral(stub)})`);
});

test.after.always(() => {
  connection?.closeSync();
  instance?.closeSync();
  rmSync(directory, { recursive: true, force: true });
});

async function scansOf(sql: string) {
  const reader = await connection.runAndReadAll(`SELECT json_serialize_plan(${quoteLiteral(sql)}, optimize := true)`);
  return plannedScans(String(reader.getRows()[0]![0]), new Set([stub]));
}

test('columns are those the query uses, including filter-only columns', async (t) => {
  const scan = (await scansOf("SELECT amount FROM live WHERE day > DATE '2024-01-02' AND name = 'x'"))?.get(stub);
  t.deepEqual([...(scan?.columns ?? [])].sort(), ['amount', 'day', 'name']);
  // Filters are keyed by position in the scanned columns, not by table column: check they land on the right names.
  t.deepEqual(scan?.filters.map((filter) => [filter.column, filter.operator]).sort(), [['day', '>'], ['name', '=']]);
  const day = scan?.filters.find((filter) => filter.column === 'day');
  t.deepEqual(day && 'value' in day ? day.value : undefined, new Date(Date.UTC(2024, 0, 2)));
});

test('decimal, bigint, boolean, IN and IS NULL are pushed exactly; timestamps and expressions are left to the engine', async (t) => {
  const scan = (await scansOf("SELECT id FROM live WHERE amount >= 3.5 AND big = 9007199254740991 AND flag AND id IN (1, 2) AND name IS NULL AND stamp > TIMESTAMP '2024-01-01 00:00:00.5' AND lower(name) = 'q'"))?.get(stub);
  const byColumn = Object.fromEntries((scan?.filters ?? []).map((filter) => [filter.column, filter]));
  t.deepEqual(byColumn['amount'], { column: 'amount', operator: '>=', value: '3.50' });
  t.deepEqual(byColumn['big'], { column: 'big', operator: '=', value: 9007199254740991n });
  t.deepEqual(byColumn['flag'], { column: 'flag', operator: '=', value: true });
  // DuckDB turns a small IN list into a range (plus an optional IN): a superset, which is all pushdown needs.
  const idFilters = (scan?.filters ?? []).filter((filter) => filter.column === 'id');
  t.true(idFilters.length > 0 && idFilters.every((filter) => ['IN', '>=', '<='].includes(filter.operator)), JSON.stringify(idFilters, (_, value: unknown) => (typeof value === 'bigint' ? String(value) : value)));
  t.deepEqual(byColumn['name'], { column: 'name', operator: 'IS NULL' });
  t.is(byColumn['stamp'], undefined);
});

test('a dataset read twice gets the union of columns and no filters; an unplannable statement gives undefined', async (t) => {
  const scan = (await scansOf("SELECT a.id FROM live a JOIN live b ON a.id = b.id WHERE b.name = 'x'"))?.get(stub);
  t.deepEqual([...(scan?.columns ?? [])].sort(), ['id', 'name']);
  t.deepEqual(scan?.filters, []);
  t.is(plannedScans('{"error":true,"error_message":"x"}', new Set([stub])), undefined);
  t.is((await scansOf('SELECT 1'))?.size, 0);
});

test('a LIMIT straight over an unfiltered scan is pushed; with a filter, an ORDER BY or an aggregate it is not', async (t) => {
  t.is((await scansOf('SELECT name FROM live LIMIT 7'))?.get(stub)?.limit, 7);
  t.is((await scansOf("SELECT name FROM live WHERE name = 'x' LIMIT 7"))?.get(stub)?.limit, undefined);
  t.is((await scansOf('SELECT name FROM live ORDER BY id LIMIT 7'))?.get(stub)?.limit, undefined);
  t.is((await scansOf('SELECT count(*) FROM (SELECT * FROM live LIMIT 7)'))?.get(stub)?.limit, 7);
  t.is((await scansOf('SELECT name, count(*) FROM live GROUP BY name LIMIT 7'))?.get(stub)?.limit, undefined);
});

test('an unoptimised plan (DuckDB cannot serialise some optimised ones) reads every column with no filter, keeping a plain LIMIT', async (t) => {
  const reader = await connection.runAndReadAll(`SELECT json_serialize_plan(${quoteLiteral("SELECT name FROM live WHERE id = 1 LIMIT 5 OFFSET 2")})`);
  const scan = plannedScans(String(reader.getRows()[0]![0]), new Set([stub]))?.get(stub);
  t.deepEqual(scan?.filters, []);
  t.is(scan?.columns.length, 7);
  t.is(scan?.limit, undefined, 'a filter sits between the limit and the scan');
  const plain = await connection.runAndReadAll(`SELECT json_serialize_plan(${quoteLiteral('SELECT name FROM live LIMIT 5 OFFSET 2')})`);
  t.is(plannedScans(String(plain.getRows()[0]![0]), new Set([stub]))?.get(stub)?.limit, 7);
});
