import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { tableFromArrays, vectorFromArray, makeData, makeTable, Decimal, Utf8, type RecordBatch } from 'apache-arrow';
import { BatchInserter } from '../../core/engine/batch-insert.js';

// One INSERT per batch, its rows pulled by DuckDB through a table function a slice at a time,
// into a real in-memory DuckDB table.

async function withTable(run: (connection: DuckDBConnection, inserter: BatchInserter) => Promise<void>): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run('CREATE SCHEMA plugin');
    await connection.run("CREATE TABLE plugin.events (id BIGINT NOT NULL, name VARCHAR, price DECIMAL(10, 2), note VARCHAR DEFAULT 'none', tags MAP(VARCHAR, VARCHAR))");
    await run(connection, new BatchInserter(async () => connection));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const rowsOf = async (connection: DuckDBConnection, sql: string) => (await connection.runAndReadAll(sql)).getRowObjectsJS();

test('a batch larger than one slice lands whole: columns matched by name in any case and order, missing ones defaulted', async (t) => {
  await withTable(async (connection, inserter) => {
    const count = 2_500;
    const ids = BigInt64Array.from({ length: count }, (_, index) => BigInt(index));
    const names = Array.from({ length: count }, (_, index) => (index % 7 === 0 ? null : `name-${index}-${'é'.repeat(index % 3)}`));
    const table = makeTable({ NAME: vectorFromArray(names, new Utf8()).data[0]!, Id: vectorFromArray(ids).data[0]! } as never);
    const batch = table.batches[0] as unknown as RecordBatch;
    t.is(await inserter.insert({ schema: 'plugin', name: 'events' }, batch), count);
    const [summary] = await rowsOf(connection, "SELECT count(*) AS n, count(name) AS named, min(id) AS first, max(id) AS last, count(*) FILTER (note = 'none') AS defaulted FROM plugin.events");
    t.deepEqual(summary, { n: 2_500n, named: BigInt(names.filter((name) => name !== null).length), first: 0n, last: 2_499n, defaulted: 2_500n });
    t.deepEqual(await rowsOf(connection, 'SELECT id, name FROM plugin.events WHERE id IN (1, 7, 1025, 2498) ORDER BY id'), [
      { id: 1n, name: 'name-1-é' }, { id: 7n, name: null }, { id: 1025n, name: 'name-1025-éé' }, { id: 2498n, name: 'name-2498-éé' },
    ]);
  });
});

test('types without a direct layout go value by value (decimals), and inserts queue on one connection', async (t) => {
  await withTable(async (connection, inserter) => {
    const decimals = (values: number[]) => {
      const words = new Uint32Array(values.length * 4);
      values.forEach((value, index) => (words[index * 4] = value));
      const price = makeData({ type: new Decimal(2, 12, 128), length: values.length, nullCount: 0, data: words } as never);
      return makeTable({ id: vectorFromArray(BigInt64Array.from(values.map(BigInt))).data[0]!, price } as never).batches[0] as unknown as RecordBatch;
    };
    const inserts = await Promise.all([1, 2, 3].map((round) => inserter.insert({ schema: 'plugin', name: 'events' }, decimals([round * 100 + 1, round * 100 + 2]))));
    t.deepEqual(inserts, [2, 2, 2]);
    t.deepEqual((await rowsOf(connection, 'SELECT id, price::VARCHAR AS price FROM plugin.events ORDER BY id')).map((row) => `${row['id']}=${row['price']}`), ['101=1.01', '102=1.02', '201=2.01', '202=2.02', '301=3.01', '302=3.02']);
  });
});

test('a column the table lacks is refused by name, and the scan cannot be called from SQL', async (t) => {
  await withTable(async (connection, inserter) => {
    const batch = tableFromArrays({ id: BigInt64Array.from([1n]), colour: ['red'] }).batches[0]!;
    const refused = await t.throwsAsync(inserter.insert({ schema: 'plugin', name: 'events' }, batch));
    t.regex(refused.message, /has no column "colour"; its columns are id, name, price, note, tags/);
    t.deepEqual(await rowsOf(connection, 'SELECT count(*) AS n FROM plugin.events'), [{ n: 0n }]);
    // Register the function (an insert), then call it by its name with a made-up token.
    await inserter.insert({ schema: 'plugin', name: 'events' }, tableFromArrays({ id: BigInt64Array.from([2n]) }).batches[0]!);
    const [{ name }] = await rowsOf(connection, "SELECT function_name AS name FROM duckdb_functions() WHERE function_name LIKE 'quarry_batch_scan_%'") as [{ name: string }];
    const called = await t.throwsAsync(connection.run(`SELECT * FROM ${name}('0123456789abcdef0123456789abcdef')`));
    t.regex(called.message, /is internal to the engine .* cannot be called from SQL/);
  });
});
