import { rmSync } from 'node:fs';
import test from 'ava';
import { fibonacciDelay } from '../../core/engine/acceleration/refresh-scheduler.js';
import { redirectInsert } from '../../core/engine/acceleration/insert-redirect.js';
import { sourceSelect } from '../../core/engine/acceleration/refresh-statements.js';
import { loadManifest } from '../../core/manifest/load.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { writeManifestDirectory } from '../helpers/runtime.js';

/** The pure parts of the acceleration lifecycle, and the manifest rules across its keys. */

test('retry delays follow Fibonacci multiples of the base, capped', (t) => {
  t.deepEqual([1, 2, 3, 4, 5, 6, 7].map((attempt) => fibonacciDelay(attempt, 1000, 60_000)), [1000, 1000, 2000, 3000, 5000, 8000, 13_000]);
  t.is(fibonacciDelay(40, 1000, 60_000), 60_000);
});

test('INSERT into a redirected dataset targets its table, keeps the rest of the statement, adds the conflict clause', (t) => {
  const resolve = (name: string) => (name === 'orders' ? { table: '"f"."main"."orders"', conflictClause: 'OR REPLACE' as const } : undefined);
  t.is(redirectInsert("INSERT INTO orders VALUES (1, 'insert into orders')", resolve), `INSERT OR REPLACE INTO "f"."main"."orders" VALUES (1, 'insert into orders')`);
  t.is(redirectInsert('-- note\n  insert into main."orders" (id) SELECT 1', resolve), '-- note\n  insert OR REPLACE into "f"."main"."orders" (id) SELECT 1');
  t.is(redirectInsert('INSERT OR IGNORE INTO memory.main.orders VALUES (1)', resolve), 'INSERT OR IGNORE INTO "f"."main"."orders" VALUES (1)', "the statement's own conflict clause wins");
  t.is(redirectInsert("SELECT 'INSERT INTO orders'", resolve), "SELECT 'INSERT INTO orders'", 'text inside a query is never touched');
  t.is(redirectInsert('INSERT INTO customers VALUES (1)', resolve), 'INSERT INTO customers VALUES (1)');
});

test('refresh_sql is evaluated against the source under the dataset name', (t) => {
  t.is(sourceSelect('orders', "read_csv('/d/o.csv')", undefined), "SELECT * FROM read_csv('/d/o.csv')");
  t.is(
    sourceSelect('sales.orders', "read_csv('/d/o.csv')", "SELECT * FROM orders WHERE region = 'EU';"),
    `WITH "orders" AS (SELECT * FROM read_csv('/d/o.csv')) SELECT * FROM (SELECT * FROM orders WHERE region = 'EU') AS refresh_rows`,
  );
});

async function manifestError(acceleration: string, datasetExtra = ''): Promise<string> {
  const directory = writeManifestDirectory({ manifest: `datasets:\n  - from: file:e.csv\n    name: events\n${datasetExtra}    acceleration:\n${acceleration}`, files: { 'e.csv': 'id\n1\n' } });
  try {
    await loadManifest({ path: directory, bundle: defaultPlugins() });
    return '';
  } catch (error) {
    return (error as Error).message;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test('manifest rules: on_conflict needs the primary key, append needs time_column or primary_key', async (t) => {
  t.regex(await manifestError('      on_conflict:\n        id: upsert\n'), /dataset "events": on_conflict needs acceleration\.primary_key/);
  t.regex(await manifestError('      primary_key: id\n      on_conflict:\n        other: upsert\n'), /on_conflict must have one entry, keyed by the primary key: \{ id: upsert \}/);
  t.regex(await manifestError('      primary_key: id\n      on_conflict:\n        id: merge\n'), /expected upsert \(replace the stored row\) or drop/);
  t.regex(await manifestError('      refresh_mode: append\n'), /dataset "events": refresh_mode append needs time_column .* or acceleration\.primary_key/);
  t.is(await manifestError('      refresh_mode: append\n', '    time_column: at\n'), '');
  t.is(await manifestError('      primary_key: [a, b]\n      on_conflict:\n        "(a, b)": drop\n'), '');
});
