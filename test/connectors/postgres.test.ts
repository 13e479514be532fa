import test from 'ava';
import pg from 'pg';
import { startPostgres, type PostgresServer } from '../helpers/postgres.js';
import { withRuntime } from '../helpers/runtime.js';
import { withFlight } from '../flight/flight-helpers.js';
import { createLogger } from '../../core/log.js';
import { PostgresSource } from '../../plugins/connector-postgres/postgres-source.js';
import { datasetStatuses, jsonRows, logFields, manifestWith } from './helpers.js';

// One real PostgreSQL server (Debian's postgresql 15) for the file; each test uses its own tables.
let server: PostgresServer;

test.before(async () => {
  server = await startPostgres();
  await execute(`
    CREATE SCHEMA shop;
    CREATE TABLE shop.orders (id int4 PRIMARY KEY, customer text, amount numeric(12,2), placed date);
    INSERT INTO shop.orders VALUES (1, 'ada', 10.50, '2024-01-01'), (2, 'bob', 20.00, '2024-01-02'), (3, 'ada', 7.25, '2024-02-01'), (4, NULL, NULL, NULL);
    CREATE TABLE shop.kinds (
      small int2, regular int4, big int8, exact numeric(20,6), loose numeric, label varchar(10), letter char(2), flag bool,
      day date, at timestamp, at_utc timestamptz, real4 float4, real8 float8, bytes bytea, doc json, docb jsonb, id uuid,
      ints int4[], words text[], clock time);
    INSERT INTO shop.kinds VALUES (-3, 2147483647, 9007199254740993, 12345678901234.123456, 3.14159265358979323846264338327950288, 'hi', 'a',
      true, '1999-12-31', '2024-03-04 05:06:07.123456', '2024-03-04 05:06:07.654321+02', 1.5, 2.25, '\\x00ff10', '{"a": [1, 2]}', '{"b": true}',
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{1,NULL,3}', '{x,"y z"}', '13:14:15');
    INSERT INTO shop.kinds DEFAULT VALUES;
  `);
});

test.after.always(async () => {
  await server?.stop();
});

async function execute(sql: string): Promise<void> {
  const client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function dataset(name: string, table: string, extra = ''): string {
  return `  - from: postgres:${table}
    name: ${name}
    params:
      pg_host: 127.0.0.1
      pg_port: "${server.port}"
      pg_db: postgres
      pg_user: postgres
      pg_pass: unused
      pg_sslmode: disable${extra}`;
}

test('live postgres dataset: projection and filters reach PostgreSQL as parameterised SQL', async (t) => {
  await withRuntime(t, { manifest: manifestWith(dataset('orders', 'shop.orders')) }, async ({ sql, logs }) => {
    const rows = await jsonRows(await sql("SELECT id FROM orders WHERE customer = 'ada' AND amount >= 8 AND placed IS NOT NULL ORDER BY id"));
    t.deepEqual(rows, [{ id: 1 }]);
    const sent = logFields(logs, 'postgres query').map((fields) => fields['sql']);
    t.true(sent.includes('SELECT "id", "customer", "amount", "placed" FROM "shop"."orders" WHERE "customer" = $1 AND "amount" >= $2 AND "placed" IS NOT NULL'), JSON.stringify(sent));
    const inList = await jsonRows(await sql("SELECT count(*) AS n FROM orders WHERE id IN (1, 2, 4)"));
    t.deepEqual(inList, [{ n: 3 }]);
    t.true(logFields(logs, 'postgres query').some((fields) => String(fields['sql']).includes('"id" IN ($1, $2, $3)')));
    const dates = await jsonRows(await sql("SELECT id FROM orders WHERE placed < DATE '2024-01-15' ORDER BY id"));
    t.deepEqual(dates, [{ id: 1 }, { id: 2 }]);
  });
});

test('postgres types map faithfully (int8, numeric, timestamps to the microsecond, json, uuid, arrays)', async (t) => {
  await withRuntime(t, { manifest: manifestWith(dataset('kinds', 'shop.kinds')) }, async ({ sql }) => {
    const types = await jsonRows(await sql('SELECT column_name AS c, column_type AS d FROM (DESCRIBE SELECT * FROM kinds)'));
    t.deepEqual(Object.fromEntries(types.map((row) => [row['c'], row['d']])), {
      small: 'SMALLINT', regular: 'INTEGER', big: 'BIGINT', exact: 'DECIMAL(20,6)', loose: 'VARCHAR', label: 'VARCHAR', letter: 'VARCHAR',
      flag: 'BOOLEAN', day: 'DATE', at: 'TIMESTAMP', at_utc: 'TIMESTAMP WITH TIME ZONE', real4: 'FLOAT', real8: 'DOUBLE', bytes: 'BLOB',
      doc: 'JSON', docb: 'JSON', id: 'UUID', ints: 'INTEGER[]', words: 'VARCHAR[]', clock: 'VARCHAR',
    });
    const [row] = await jsonRows(await sql(`SELECT small, regular, CAST(big AS VARCHAR) AS big, CAST(exact AS VARCHAR) AS exact, loose, label, letter, flag,
      CAST(day AS VARCHAR) AS day, CAST("at" AS VARCHAR) AS "at", epoch_us(at_utc) AS at_utc_us, real4, real8, hex(bytes) AS bytes,
      doc->>'$.a[1]' AS doc_a1, CAST(docb AS VARCHAR) AS docb, CAST(id AS VARCHAR) AS id, ints, words, clock FROM kinds WHERE small IS NOT NULL`));
    t.deepEqual(row, {
      small: -3, regular: 2147483647, big: '9007199254740993', exact: '12345678901234.123456', loose: '3.14159265358979323846264338327950288',
      label: 'hi', letter: 'a ', flag: true, day: '1999-12-31', at: '2024-03-04 05:06:07.123456', at_utc_us: 1709521567654321, real4: 1.5, real8: 2.25,
      bytes: '00FF10', doc_a1: '2', docb: '{"b": true}', id: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', ints: [1, null, 3], words: ['x', 'y z'], clock: '13:14:15',
    });
    const nulls = await jsonRows(await sql('SELECT count(*) AS n FROM kinds WHERE small IS NULL AND big IS NULL AND at_utc IS NULL AND ints IS NULL'));
    t.deepEqual(nulls, [{ n: 1 }]);
  });
});

test('accelerated postgres dataset over Flight; refresh picks up source changes', async (t) => {
  await execute('CREATE TABLE shop.stock (sku text, qty int8); INSERT INTO shop.stock VALUES (\'a\', 1), (\'b\', 2);');
  const manifest = manifestWith(`${dataset('stock', 'shop.stock')}
    acceleration:
      enabled: true`);
  await withFlight(t, { manifest }, async ({ client, baseUrl, logs }) => {
    const first = await client.query('SELECT sum(qty) AS total FROM stock');
    t.is(Number(first.table.get(0)?.toJSON()['total']), 3);
    const reads = logFields(logs, 'postgres query').length;
    await execute("INSERT INTO shop.stock VALUES ('c', 40)");
    const cached = await client.query('SELECT count(*) AS n FROM stock');
    t.is(Number(cached.table.get(0)?.toJSON()['n']), 2, 'the acceleration serves the loaded rows');
    t.is(logFields(logs, 'postgres query').length, reads, 'queries on an accelerated dataset do not reach PostgreSQL');
    const refreshed = await fetch(`${baseUrl}/v1/datasets/stock/acceleration/refresh`, { method: 'POST' });
    t.is(refreshed.status, 201, await refreshed.text());
    const after = await client.query('SELECT CAST(sum(qty) AS BIGINT) AS total, count(*) AS n FROM stock');
    t.deepEqual(after.table.get(0)?.toJSON(), { total: 43n, n: 3n });
  });
});

test('an accelerated dataset is read live until its first load completes (never empty meanwhile)', async (t) => {
  // Reading the whole view takes 10 s, 2 s a row (the load); a query on `id` alone never calls the
  // slow function (it is IMMUTABLE, so PostgreSQL drops the unused column of the view).
  await execute(`CREATE TABLE shop.base AS SELECT n AS id FROM generate_series(1, 5) AS n;
    CREATE FUNCTION shop.slowly(value int) RETURNS text IMMUTABLE LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(2); RETURN value::text; END $$;
    CREATE VIEW shop.slow AS SELECT id, shop.slowly(id) AS lazy FROM shop.base`);
  const manifest = manifestWith(`${dataset('slow', 'shop.slow')}
    acceleration:
      enabled: true`);
  await withRuntime(t, { manifest, waitForLoad: false }, async ({ sql, baseUrl, runtime, logs }) => {
    const began = Date.now();
    const during = await jsonRows(await sql('SELECT count(id) AS n FROM slow'));
    const state = (await datasetStatuses(baseUrl)).get('slow');
    t.is(state?.status, 'Initializing', `the load was still running: ${JSON.stringify(state)} after ${Date.now() - began} ms; ${JSON.stringify(logFields(logs, 'live dataset scanned'))}`);
    t.deepEqual(during, [{ n: 5 }]);
    await runtime.whenLoaded();
    t.is((await datasetStatuses(baseUrl)).get('slow')?.status, 'Ready');
    t.deepEqual(await jsonRows(await sql('SELECT count(lazy) AS n FROM slow')), [{ n: 5 }]);
  });
});

test('two live queries at once on one dataset each see their own filtered rows', async (t) => {
  await execute('CREATE TABLE shop.numbers AS SELECT n AS value FROM generate_series(1, 20000) AS n');
  await withRuntime(t, { manifest: manifestWith(dataset('numbers', 'shop.numbers')) }, async ({ sql }) => {
    const queries = Array.from({ length: 6 }, (_, index) => sql(`SELECT count(*) AS n, min(value) AS low FROM numbers WHERE value > ${index * 1000}`, { headers: { 'cache-control': 'no-cache' } }));
    const results = await Promise.all(queries.map(async (response) => (await jsonRows(await response))[0]));
    t.deepEqual(results, Array.from({ length: 6 }, (_, index) => ({ n: 20000 - index * 1000, low: index * 1000 + 1 })));
  });
});

test('postgres: an unreachable server or a missing table puts the dataset in error; bad params are named', async (t) => {
  const closedPort = server.port === 1 ? 2 : 1;
  const manifest = manifestWith([
    dataset('gone', 'shop.orders').replace(`"${server.port}"`, `"${closedPort}"`),
    dataset('notable', 'shop.nosuch'),
    `${dataset('typo', 'shop.orders')}\n      pg_hots: x`,
    dataset('badssl', 'shop.orders').replace('pg_sslmode: disable', 'pg_sslmode: sometimes'),
    '  - from: postgres:shop.orders\n    name: nohost',
  ].join('\n'));
  await withRuntime(t, { manifest }, async ({ baseUrl, sql }) => {
    const statuses = await datasetStatuses(baseUrl);
    t.regex(statuses.get('gone')?.error ?? '', /dataset gone: .*PostgreSQL at 127\.0\.0\.1:\d+: .*(ECONNREFUSED|connect)/);
    t.regex(statuses.get('notable')?.error ?? '', /relation "shop\.nosuch" does not exist/);
    t.regex(statuses.get('typo')?.error ?? '', /params\.pg_hots is not a parameter of postgres: datasets; accepted: pg_host, pg_port/);
    t.regex(statuses.get('badssl')?.error ?? '', /params\.pg_sslmode is "sometimes"; accepted: disable, prefer, require, verify-ca, verify-full/);
    t.regex(statuses.get('nohost')?.error ?? '', /set params\.pg_host .* or params\.pg_connection_string/);
    t.false((await sql('SELECT * FROM gone')).ok);
  });
});

test('postgres: a table missing at start-up is served once it exists, without a restart', async (t) => {
  await withRuntime(t, { manifest: manifestWith(dataset('later', 'shop.later')) }, async ({ baseUrl, sql }) => {
    const failed = (await datasetStatuses(baseUrl)).get('later');
    t.is(failed?.status, 'Error');
    t.regex(failed?.error ?? '', /relation "shop\.later" does not exist.*\(asked again at /);
    const refused = await sql('SELECT * FROM later');
    t.is(refused.status, 503);
    t.is(((await refused.json()) as { error: { code: string } }).error.code, 'DATASET_NOT_READY');
    await execute("CREATE TABLE shop.later (id int4, note text); INSERT INTO shop.later VALUES (1, 'now')");
    // Asked again with backoff (1 s, 1 s, 2 s, ...): registered at the next attempt.
    const deadline = Date.now() + 30_000;
    while ((await datasetStatuses(baseUrl)).get('later')?.status !== 'Ready') {
      if (Date.now() > deadline) throw new Error('shop.later was not registered within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    t.deepEqual(await jsonRows(await sql('SELECT id, note FROM later')), [{ id: 1, note: 'now' }]);
  });
});

test('postgres: pg_connection_string with sslmode=prefer connects to a server without TLS', async (t) => {
  const manifest = manifestWith(`  - from: postgres:shop.orders
    name: orders
    params:
      pg_connection_string: postgresql://postgres@127.0.0.1:${server.port}/postgres?sslmode=prefer`);
  await withRuntime(t, { manifest }, async ({ sql }) => {
    t.deepEqual(await jsonRows(await sql('SELECT count(*) AS n FROM orders')), [{ n: 4 }]);
  });
});

test('postgres: a load\'s row total is PostgreSQL\'s own estimate; none for a view or a table never analysed', async (t) => {
  await execute(`CREATE TABLE shop.counted AS SELECT n FROM generate_series(1, 1234) AS n; ANALYZE shop.counted;
    CREATE TABLE shop.unanalysed (n int4); CREATE VIEW shop.counted_view AS SELECT * FROM shop.counted`);
  const source = (table: string) =>
    new PostgresSource(
      { name: table, from: `postgres:shop.${table}`, scheme: 'postgres', location: `shop.${table}`, params: {}, baseDirectory: '.', log: createLogger({ sink: () => undefined }) },
      { config: { host: server.host, port: server.port, user: server.user, database: server.database }, sslMode: 'disable', table: ['shop', table] },
    );
  t.is(await source('counted').estimateRows(), 1234);
  t.is(await source('unanalysed').estimateRows(), undefined);
  t.is(await source('counted_view').estimateRows(), undefined);
});
