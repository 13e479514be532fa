import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import initSqlJs from 'sql.js';
import { withRuntime } from '../helpers/runtime.js';
import { withFlight } from '../flight/flight-helpers.js';
import { datasetStatuses, jsonRows, logFields, manifestWith } from './helpers.js';

/** A real SQLite file written by SQLite itself (sql.js). */
async function sqliteFile(statements: string): Promise<Buffer> {
  const SQL = await initSqlJs();
  const database = new SQL.Database();
  database.exec(statements);
  const bytes = Buffer.from(database.export());
  database.close();
  return bytes;
}

const SHOP = `
  CREATE TABLE orders (id INTEGER, customer TEXT, amount REAL, paid BOOLEAN, note BLOB, placed DATE);
  INSERT INTO orders VALUES (1, 'ada', 10.5, 1, x'0102', '2024-01-01'), (2, 'bob', 20, 0, NULL, '2024-01-02'),
    (3, 'ada', 7.25, 1, NULL, NULL), (9007199254740993, 'cy', NULL, NULL, NULL, '2024-02-01');`;

const LIVE = manifestWith(`  - from: sqlite:orders
    name: orders
    params:
      sqlite_file: shop.db`);

test('live sqlite dataset: columns and filters reach SQLite as SQL; types map', async (t) => {
  await withRuntime(t, { manifest: LIVE, files: { 'shop.db': await sqliteFile(SHOP) } }, async ({ sql, logs }) => {
    const rows = await jsonRows(await sql("SELECT id, amount FROM orders WHERE customer = 'ada' AND amount > 8 ORDER BY id"));
    t.deepEqual(rows, [{ id: 1, amount: 10.5 }]);
    const queries = logFields(logs, 'sqlite query').map((fields) => fields['sql']);
    t.true(queries.includes('SELECT "id", "customer", "amount" FROM "orders" WHERE "customer" = ? AND "amount" > ?'), JSON.stringify(queries));

    const typed = await jsonRows(await sql("SELECT typeof(id) AS i, typeof(amount) AS a, typeof(paid) AS p, typeof(note) AS n, typeof(placed) AS d FROM orders LIMIT 1"));
    t.deepEqual(typed, [{ i: 'BIGINT', a: 'DOUBLE', p: 'BOOLEAN', n: 'BLOB', d: 'VARCHAR' }]);
    // 2^53 + 1 survives: SQLite integers are read as 64-bit, never through a JS number.
    const big = await jsonRows(await sql("SELECT CAST(id AS VARCHAR) AS id FROM orders WHERE customer = 'cy'"));
    t.deepEqual(big, [{ id: '9007199254740993' }]);
    t.is((await jsonRows(await sql('SELECT customer FROM orders LIMIT 2'))).length, 2);
    t.true(logFields(logs, 'sqlite query').some((fields) => fields['sql'] === 'SELECT "customer" FROM "orders" LIMIT 2'), 'the limit reaches SQLite');
    const counted = await jsonRows(await sql('SELECT count(*) AS n, count(paid) AS p FROM orders WHERE paid IS NOT NULL'));
    t.deepEqual(counted, [{ n: 3, p: 3 }]);
  });
});

test('live sqlite dataset: each query reads the file as it is now', async (t) => {
  await withRuntime(t, { manifest: LIVE, files: { 'shop.db': await sqliteFile(SHOP) } }, async ({ sql, directory }) => {
    t.deepEqual(await jsonRows(await sql('SELECT count(*) AS n FROM orders')), [{ n: 4 }]);
    writeFileSync(path.join(directory, 'shop.db'), await sqliteFile(`${SHOP} INSERT INTO orders VALUES (10, 'dee', 1, 1, NULL, NULL);`));
    // no-cache: the results cache would otherwise answer the repeated query.
    t.deepEqual(await jsonRows(await sql('SELECT count(*) AS n FROM orders', { headers: { 'cache-control': 'no-cache' } })), [{ n: 5 }]);
  });
});

test('accelerated sqlite dataset loads, serves without touching SQLite, and refresh picks up changes', async (t) => {
  const manifest = manifestWith(`  - from: sqlite:orders
    name: orders
    params:
      sqlite_file: shop.db
    acceleration:
      enabled: true`);
  await withRuntime(t, { manifest, files: { 'shop.db': await sqliteFile(SHOP) } }, async ({ sql, logs, directory, baseUrl }) => {
    t.deepEqual(await jsonRows(await sql("SELECT sum(amount) AS total FROM orders WHERE customer = 'ada'")), [{ total: 17.75 }]);
    const readsAfterLoad = logFields(logs, 'sqlite query').length;
    t.is(readsAfterLoad, 1, 'one full read at load');
    await sql('SELECT * FROM orders');
    t.is(logFields(logs, 'sqlite query').length, readsAfterLoad, 'queries are served from the acceleration');
    writeFileSync(path.join(directory, 'shop.db'), await sqliteFile(`${SHOP} DELETE FROM orders WHERE id = 1;`));
    const refreshed = await fetch(`${baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' });
    t.is(refreshed.status, 201, await refreshed.text());
    t.deepEqual(await jsonRows(await sql("SELECT sum(amount) AS total FROM orders WHERE customer = 'ada'")), [{ total: 7.25 }]);
  });
});

test('sqlite: bad params and a missing file or table put the dataset in error with a clear message', async (t) => {
  const manifest = manifestWith(`  - from: sqlite:orders
    name: typo
    params:
      sqlite_file: shop.db
      sqlite_fiel: x
  - from: sqlite:orders
    name: nofile
  - from: sqlite:orders
    name: missing
    params:
      sqlite_file: nowhere.db
  - from: sqlite:nosuch
    name: notable
    params:
      sqlite_file: shop.db`);
  await withRuntime(t, { manifest, files: { 'shop.db': await sqliteFile(SHOP) } }, async ({ baseUrl, sql }) => {
    const statuses = await datasetStatuses(baseUrl);
    t.regex(statuses.get('typo')?.error ?? '', /dataset typo: params\.sqlite_fiel is not a parameter of sqlite: datasets; accepted: sqlite_file/);
    t.regex(statuses.get('nofile')?.error ?? '', /dataset nofile: params\.sqlite_file is required/);
    t.regex(statuses.get('missing')?.error ?? '', /dataset missing: cannot read SQLite file .*nowhere\.db/);
    t.regex(statuses.get('notable')?.error ?? '', /has no table "nosuch" \(tables: orders\)/);
    for (const name of ['typo', 'nofile', 'missing', 'notable']) t.is(statuses.get(name)?.status, 'Error');
    const response = await sql('SELECT * FROM missing');
    t.false(response.ok, 'a dataset in error is never an empty result');
  });
});

test('live sqlite dataset whose file disappears: the query fails naming the dataset, never empty', async (t) => {
  await withRuntime(t, { manifest: LIVE, files: { 'shop.db': await sqliteFile(SHOP) } }, async ({ sql, directory }) => {
    const { rmSync } = await import('node:fs');
    rmSync(path.join(directory, 'shop.db'));
    const response = await sql('SELECT * FROM orders');
    t.is(response.status, 502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    t.is(body.error.code, 'DATASET_SOURCE_FAILED');
    t.regex(body.error.message, /dataset orders is read live from sqlite:orders, and reading it failed: .*cannot read SQLite file/);
  });
});

test('live sqlite dataset over Flight SQL: statement and prepared statement', async (t) => {
  await withFlight(t, { manifest: LIVE, files: { 'shop.db': await sqliteFile(SHOP) } }, async ({ client }) => {
    const { table } = await client.query("SELECT id, customer FROM orders WHERE customer = 'ada' ORDER BY id");
    t.deepEqual(table.toArray().map((row) => ({ ...row.toJSON() })), [{ id: 1n, customer: 'ada' }, { id: 3n, customer: 'ada' }]);
    const prepared = await client.prepare('SELECT count(*) AS n FROM orders WHERE paid = ?');
    try {
      await prepared.bind([true]);
      const result = await prepared.query();
      t.is(Number(result.table.get(0)?.toJSON()['n']), 2);
    } finally {
      await prepared.close();
    }
  });
});

test('accelerated sqlite dataset in file mode loads into its database file and refreshes', async (t) => {
  const manifest = manifestWith(`  - from: sqlite:orders
    name: orders
    params:
      sqlite_file: shop.db
    acceleration:
      enabled: true
      mode: file`);
  await withRuntime(t, { manifest, files: { 'shop.db': await sqliteFile(SHOP) } }, async ({ sql, directory, baseUrl }) => {
    t.deepEqual(await jsonRows(await sql('SELECT count(*) AS n FROM orders')), [{ n: 4 }]);
    writeFileSync(path.join(directory, 'shop.db'), await sqliteFile(`${SHOP} DELETE FROM orders WHERE id > 2;`));
    const refreshed = await fetch(`${baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' });
    t.is(refreshed.status, 201, await refreshed.text());
    t.deepEqual(await jsonRows(await sql('SELECT count(*) AS n FROM orders', { headers: { 'cache-control': 'no-cache' } })), [{ n: 2 }]);
  });
});
