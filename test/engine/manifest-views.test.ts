import test from 'ava';
import { loadManifest } from '../../core/manifest/load.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { withRuntime, writeManifestDirectory } from '../helpers/runtime.js';

/**
 * The manifest's `views:` (Spice's shape): created once what they read is registered,
 * answered by every door like a dataset, and treated as reading their datasets, so cached
 * results of a view go when a dataset it reads is refreshed.
 */

const MANIFEST = `version: v2
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
  - from: file:data/customers.csv
    name: customers
views:
  - name: orders_by_status
    description: Orders per status
    sql: SELECT status, count(*) AS orders FROM orders GROUP BY status
  - name: busy_statuses
    sql: |
      SELECT * FROM orders_by_status WHERE orders > 200;
  - name: broken
    sql: SELECT no_such_column FROM orders
  - name: smuggled
    sql: "SELECT 1; DROP TABLE orders"
  - name: not_a_select
    sql: DROP TABLE orders
  - name: reseeding
    sql: SELECT setseed(0.5) AS seeded
  - name: reports.daily
    sql: SELECT CAST(ordered_at AS DATE) AS day, count(*) AS orders FROM orders GROUP BY 1
runtime:
  caching:
    sql_results:
      enabled: true
      item_ttl: 1h
`;

const json = async (response: Response) => {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text}`);
  return JSON.parse(text) as Array<Record<string, unknown>>;
};

test('views answer like datasets, over other views, and only one SELECT becomes a view', async (t) => {
  await withRuntime(t, { manifest: MANIFEST, withQuickstartData: true }, async ({ sql, runtime, logs }) => {
    const expected = await json(await sql("SELECT status, count(*) AS orders FROM orders GROUP BY status HAVING count(*) > 200 ORDER BY status"));
    t.true(expected.length > 0);
    t.deepEqual(await json(await sql('SELECT * FROM busy_statuses ORDER BY status')), expected);
    t.deepEqual(await json(await sql('SELECT * FROM spice.public.busy_statuses ORDER BY status')), expected, "Spice's name for the view");
    t.deepEqual(await json(await sql('SELECT sum(orders)::INTEGER AS n FROM reports.daily')), [{ n: 5000 }], 'a view in a schema of its own');

    const states = Object.fromEntries(runtime.engine.views().map((view) => [view.name, view]));
    t.is(states['orders_by_status']!.state, 'ready');
    t.deepEqual(states['busy_statuses']!.reads, ['orders'], 'a view over a view reads what that view reads');
    t.is(states['broken']!.state, 'error');
    t.regex(states['broken']!.error!, /no_such_column/);
    t.is(states['smuggled']!.state, 'error');
    t.regex(states['smuggled']!.error!, /multiple statements/);
    t.is(states['not_a_select']!.state, 'error');
    t.regex(states['not_a_select']!.error!, /must be one SELECT statement/);
    t.is(states['reseeding']!.state, 'error', 'a view calls no function user SQL may not');
    t.regex(states['reseeding']!.error!, /may do only what user SQL may: .*setseed/);
    t.true(logs.some((record) => record.level === 'error' && record.message === 'view does not bind' && record.fields?.['view'] === 'broken'));

    // Neither refused definition touched the dataset.
    t.deepEqual(await json(await sql('SELECT count(*)::INTEGER AS n FROM orders')), [{ n: 5000 }]);
    const broken = await sql('SELECT * FROM broken');
    t.is(broken.status, 400);
    t.regex(await broken.text(), /TABLE_NOT_FOUND/);
  });
});

test('a cached result of a view goes when a dataset it reads is refreshed', async (t) => {
  await withRuntime(t, { manifest: MANIFEST, withQuickstartData: true }, async ({ sql, baseUrl }) => {
    const cacheStatus = async () => {
      const response = await sql('SELECT * FROM busy_statuses ORDER BY status');
      await response.arrayBuffer();
      return response.headers.get('x-cache');
    };
    t.is(await cacheStatus(), 'MISS');
    t.is(await cacheStatus(), 'HIT', 'the second run is a hit (item_ttl is an hour)');
    const refresh = await fetch(`${baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' });
    t.is(refresh.status, 201, await refresh.text());
    t.is(await cacheStatus(), 'MISS', 'the refresh of orders dropped what the view read from it');
  });
});

test('user SQL cannot change or drop a view', async (t) => {
  await withRuntime(t, { manifest: MANIFEST, withQuickstartData: true }, async ({ sql }) => {
    for (const statement of ['DROP VIEW orders_by_status', 'CREATE OR REPLACE VIEW orders_by_status AS SELECT 1', "INSERT INTO orders_by_status VALUES ('x', 1)"]) {
      const response = await sql(statement);
      t.is(response.status, 403, statement);
      const body = await response.text();
      t.regex(body, /WRITE_NOT_ALLOWED/, statement);
      if (statement.startsWith('INSERT')) t.regex(body, /"orders_by_status\\" is a view .*read-only/);
    }
    t.true((await json(await sql('SELECT * FROM orders_by_status'))).length > 0);
  });
});

test('view names are unique among views and datasets; accelerated views are served live with a warning', async (t) => {
  const bad = writeManifestDirectory({
    manifest: `datasets:
  - { from: file:data/orders.parquet, name: orders }
views:
  - { name: Orders, sql: SELECT 1 }
  - { name: daily, sql: SELECT 1 }
  - { name: DAILY, sql: SELECT 2 }
  - { name: "no good", sql: SELECT 3 }
  - { name: empty, sql: "  " }
`,
  });
  const error = await t.throwsAsync(loadManifest({ path: bad, bundle: defaultPlugins() }));
  t.is((error as { code?: string }).code, 'MANIFEST_INVALID');
  t.regex(error!.message, /views\[0\]\.name: view "Orders" has the name of datasets\[0\]/);
  t.regex(error!.message, /views\[2\]\.name: duplicate view name "DAILY" \(also views\[1\]\)/);
  t.regex(error!.message, /views\[3\]\.name: invalid value "no good": expected an identifier/);
  t.regex(error!.message, /views\[4\]\.sql: invalid value "  ": expected one SELECT statement/);

  const accelerated = writeManifestDirectory({
    manifest: `datasets:
  - { from: file:data/orders.parquet, name: orders }
views:
  - name: daily
    sql: SELECT 1
    acceleration: { enabled: true }
`,
  });
  const loaded = await loadManifest({ path: accelerated, bundle: defaultPlugins() });
  t.deepEqual(loaded.manifest.views, [{ name: 'daily', sql: 'SELECT 1' }]);
  t.true(loaded.warnings.some((warning) => /views\[0\] \(daily\)\.acceleration: views are not accelerated/.test(warning)), loaded.warnings.join('\n'));
  t.false(loaded.warnings.some((warning) => /views.*ignored/.test(warning)), 'views are no longer an ignored section');
});
