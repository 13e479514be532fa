import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import pg from 'pg';
import { startPostgres } from '../helpers/postgres.js';
import { flightEndpointOf, runCommand, startDaemon } from '../helpers/daemon.js';
import { generatedFlightSqlModules, pythonClientsFor, runPythonCases } from '../helpers/python-clients.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

/**
 * Pods written the way Spice users write them (test/spice-pods/pods/, one folder each with
 * its spicepod.yaml), started unchanged by quarryd and asked the queries their authors show,
 * over HTTP (Python's http.client: JSON rows and the text/plain table) and Flight (pyarrow in
 * spicepy's shape). Data a pod needs that cannot be a text fixture (a SQLite file, a DuckDB
 * file, timestamps relative to now) is made here.
 */

const PODS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'pods');

interface Query {
  name: string;
  sql: string;
  rows: Array<Record<string, unknown>>;
}

/** Also asked of a pod once its queries answered: the endpoints, for more independent clients. */
type MoreChecks = (endpoints: { base: string; flight: string }) => Promise<void>;

async function servePod(t: import('ava').ExecutionContext, pod: string, prepare: (directory: string) => Promise<void>, queries: Query[], more?: MoreChecks): Promise<void> {
  if (!(await pythonClientsFor(t))) return;
  const directory = temporaryDirectory(`quarry-pod-${pod}-`);
  cpSync(path.join(PODS, pod), directory, { recursive: true });
  await prepare(directory);
  // What --check binds offline (columns, refresh_sql, views over local files, SQLite and DuckDB) passes, as start-up does.
  const checked = await runCommand('quarryd', [directory, '--check']);
  t.is(checked.code, 0, checked.stderr);
  const daemon = await startDaemon([directory]);
  try {
    const flight = await flightEndpointOf(daemon);
    while ((await fetch(`${daemon.baseUrl}/v1/ready`)).status !== 200) {
      if (daemon.child.exitCode !== null) throw new Error(daemon.output());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { outcomes, stderr, code } = await runPythonCases('spice_pod_queries.py', ['--base', daemon.baseUrl, '--flight', flight, '--queries', JSON.stringify(queries)]);
    t.is(code, 0, stderr);
    t.deepEqual([...outcomes.keys()].sort(), queries.map((query) => query.name).sort());
    for (const [name, outcome] of outcomes) t.true(outcome.ok, `${pod} / ${name}: ${outcome.error ?? ''}`);
    await more?.({ base: daemon.baseUrl, flight });
    t.notRegex(daemon.output(), / ERROR /, 'no error was logged');
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exited;
  }
}

test('a v1beta1 tutorial pod with an accelerated local file and views, listed as Spice lists them', async (t) => {
  const byZone = [
    { pickup_zone: 'Harlem', trips: 1, fares: 17.0 },
    { pickup_zone: 'JFK', trips: 2, fares: 75.5 },
    { pickup_zone: 'Midtown', trips: 2, fares: 20.75 },
  ];
  const listings: MoreChecks = async ({ base, flight }) => {
    const args = ['--base', base, '--flight', flight, '--generated', generatedFlightSqlModules(), '--dataset', 'taxi_trips', '--view', 'trips_by_zone'];
    const { outcomes, stderr, code } = await runPythonCases('spice_catalog_cases.py', args);
    t.is(code, 0, stderr);
    t.is(outcomes.size, 3, stderr);
    for (const [name, outcome] of outcomes) t.true(outcome.ok, `${name}: ${outcome.error ?? ''}`);
  };
  await servePod(t, 'taxi-tutorial', async () => undefined, [
    { name: 'a view', sql: 'SELECT * FROM trips_by_zone ORDER BY pickup_zone', rows: byZone },
    { name: 'a view over a view, by Spice\'s name', sql: 'SELECT * FROM spice.public.busy_zones ORDER BY pickup_zone', rows: [{ pickup_zone: 'JFK' }, { pickup_zone: 'Midtown' }] },
    { name: 'count', sql: 'SELECT count(*) AS trips FROM taxi_trips', rows: [{ trips: 5 }] },
    { name: 'by Spice\'s name', sql: "SELECT count(*) AS trips FROM spice.public.taxi_trips WHERE pickup_zone = 'JFK'", rows: [{ trips: 2 }] },
    { name: 'by zone', sql: 'SELECT pickup_zone, count(*) AS trips, sum(fare) AS fares FROM taxi_trips GROUP BY pickup_zone ORDER BY pickup_zone', rows: byZone },
  ], listings);
});

test('a shop pod: SQLite and DuckDB sources, Spice\'s sqlite engine, indexes, columns and secrets as a mapping', async (t) => {
  await servePod(
    t,
    'shop',
    async (directory) => {
      mkdirSync(path.join(directory, 'data'), { recursive: true });
      const sqlite = spawnSync('python3', ['-c', `import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, city TEXT)")
db.executemany("INSERT INTO customers VALUES (?, ?, ?)", [(1, "Ann", "Oslo"), (2, "Bob", "Lima"), (3, "Cy", "Oslo")])
db.commit()`, path.join(directory, 'data/customers.db')], { encoding: 'utf8' });
      if (sqlite.status !== 0) throw new Error(sqlite.stderr);
      const instance = await DuckDBInstance.create(path.join(directory, 'data/shop.duckdb'));
      const connection = await instance.connect();
      await connection.run('CREATE TABLE orders AS SELECT * FROM (VALUES (10, 1, 25.0), (11, 1, 40.0), (12, 3, 12.5), (13, 2, 7.5)) AS t(id, customer_id, amount)');
      connection.closeSync();
      instance.closeSync();
    },
    [
      {
        name: 'orders per city',
        sql: 'SELECT c.city, count(*) AS orders, sum(o.amount) AS total FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.city ORDER BY c.city',
        rows: [
          { city: 'Lima', orders: 1, total: 7.5 },
          { city: 'Oslo', orders: 3, total: 77.5 },
        ],
      },
      { name: 'an indexed lookup', sql: 'SELECT id, amount FROM orders WHERE customer_id = 1 ORDER BY id', rows: [{ id: 10, amount: 25 }, { id: 11, amount: 40 }] },
    ],
  );
});

test('an events pod with refresh_data_window and retention, accelerated with Spice\'s postgres engine name', async (t) => {
  const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString();
  await servePod(
    t,
    'events',
    async (directory) => {
      writeFileSync(path.join(directory, 'events.csv'), `id,ts,kind\n1,${daysAgo(90)},old\n2,${daysAgo(10)},click\n3,${daysAgo(1)},view\n4,${daysAgo(45)},old\n`);
    },
    [{ name: 'the last 30 days', sql: 'SELECT id, kind FROM events ORDER BY id', rows: [{ id: 2, kind: 'click' }, { id: 3, kind: 'view' }] }],
  );
});

test('a warehouse pod reading PostgreSQL: accelerated with refresh_sql and an index, live, a view joining both', async (t) => {
  const server = await startPostgres();
  t.teardown(() => server.stop());
  const client = new pg.Client({ host: server.host, port: server.port, user: server.user, database: server.database });
  await client.connect();
  await client.query(`
    CREATE SCHEMA inventory;
    CREATE TABLE inventory.products (sku text PRIMARY KEY, name text, discontinued bool);
    INSERT INTO inventory.products VALUES ('a-1', 'anvil', false), ('b-2', 'bucket', false), ('c-3', 'crank', true);
    CREATE TABLE inventory.stock (sku text, site text, units int4);
    INSERT INTO inventory.stock VALUES ('a-1', 'north', 3), ('a-1', 'south', 4), ('b-2', 'north', 10), ('c-3', 'north', 99);
  `);
  await client.end();
  await servePod(
    t,
    'warehouse',
    async (directory) => {
      // As Spice reads it: the connection from .env beside the pod, the password as a secret.
      writeFileSync(path.join(directory, '.env'), `PG_HOST=${server.host}\nPG_PORT=${server.port}\nPG_DB=${server.database}\nPG_USER=${server.user}\nPG_PASS=unused-with-trust-auth\n`);
    },
    [
      { name: 'refresh_sql kept the active products', sql: 'SELECT sku, name FROM products ORDER BY sku', rows: [{ sku: 'a-1', name: 'anvil' }, { sku: 'b-2', name: 'bucket' }] },
      { name: 'a live table', sql: 'SELECT sum(units)::INTEGER AS units FROM stock', rows: [{ units: 116 }] },
      { name: 'the view, by Spice\'s name', sql: 'SELECT sku, units::INTEGER AS units FROM spice.public.stock_by_product ORDER BY sku', rows: [{ sku: 'a-1', units: 7 }, { sku: 'b-2', units: 10 }] },
    ],
  );
});

