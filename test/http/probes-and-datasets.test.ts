import test from 'ava';
import { QUICKSTART_MANIFEST, startRuntime, withRuntime } from '../helpers/runtime.js';

test('health, ready, status and datasets answer on a running runtime', async (t) => {
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ baseUrl }) => {
    const health = await fetch(`${baseUrl}/health`);
    t.is(health.status, 200);
    t.is(await health.text(), 'ok');
    const ready = await fetch(`${baseUrl}/v1/ready`);
    t.is(ready.status, 200);
    t.is(await ready.text(), 'ready');
    const status = (await (await fetch(`${baseUrl}/v1/status`)).json()) as Array<{ name: string; status: string }>;
    t.deepEqual(status.map((listener) => [listener.name, listener.status]), [['http', 'Ready'], ['flight', 'Disabled'], ['metrics', 'Disabled']]);
    const csv = await (await fetch(`${baseUrl}/v1/status?format=csv`)).text();
    t.true(csv.startsWith('name,endpoint,status\r\nhttp,'));
    const datasets = (await (await fetch(`${baseUrl}/v1/datasets`)).json()) as Array<Record<string, unknown>>;
    t.deepEqual(datasets.map((d) => [d['name'], d['from'], d['status'], d['error'], d['acceleration_enabled']]), [
      ['orders', 'file:data/orders.parquet', 'Ready', null, true],
      ['customers', 'file:data/customers.csv', 'Ready', null, false],
    ]);
    t.deepEqual(datasets[0]!['acceleration'], { enabled: true, engine: 'duckdb', mode: 'memory', refresh_check_interval: null });
    t.true(datasets.every((d) => d['replication_enabled'] === false), 'Spice\'s replication_enabled, always false');
  });
});

test('GET /v1/datasets takes Spice\'s ?source= filter and ?status= flag', async (t) => {
  const manifest = `
datasets:
  - from: file:data/letters.csv
    name: letters_file
  - from: file:data/numbers.csv
    name: numbers_file
  - from: sqlite:letters
    name: letters_sqlite
    params:
      sqlite_file: data/letters.db
`;
  const files = { 'data/letters.csv': 'letter\na\n', 'data/numbers.csv': 'n\n1\n' };
  // The SQLite dataset's file does not exist: it is listed (in error) all the same.
  await withRuntime(t, { manifest, files }, async ({ baseUrl }) => {
    const names = async (query: string) => ((await (await fetch(`${baseUrl}/v1/datasets${query}`)).json()) as Array<{ name: string }>).map((d) => d.name);
    t.deepEqual(await names('?source=file'), ['letters_file', 'numbers_file']);
    t.deepEqual(await names('?source=FILE&status=true'), ['letters_file', 'numbers_file']);
    t.deepEqual(await names('?source=sqlite'), ['letters_sqlite']);
    t.deepEqual(await names('?source=file:data/numbers.csv'), ['numbers_file'], 'the whole from text matches too');
    t.deepEqual(await names('?source=postgres'), []);
    const bad = await fetch(`${baseUrl}/v1/datasets?status=maybe`);
    t.is(bad.status, 400);
    t.is(((await bad.json()) as { error: { code: string } }).error.code, 'REQUEST_INVALID');
  });
});

test('a dataset that fails to load is reported and the runtime keeps serving', async (t) => {
  const manifest = `${QUICKSTART_MANIFEST}
  - from: file:data/missing.parquet
    name: ghost
  - from: file:data/broken.parquet
    name: broken
    acceleration:
      enabled: true
`;
  await withRuntime(t, { manifest, withQuickstartData: true, files: { 'data/broken.parquet': 'not a parquet file' } }, async ({ baseUrl, sql, runtime, logs }) => {
    const datasets = (await (await fetch(`${baseUrl}/v1/datasets`)).json()) as Array<{ name: string; status: string; error: string | null }>;
    const ghost = datasets.find((d) => d.name === 'ghost')!;
    t.is(ghost.status, 'Error');
    t.is(ghost.error, `dataset ghost: file ${runtime.source.directory}/data/missing.parquet does not exist`);
    const broken = datasets.find((d) => d.name === 'broken')!;
    t.is(broken.status, 'Error');
    t.regex(broken.error!, /too small to be a Parquet file|No magic bytes|not a parquet file/i);
    t.true(logs.some((record) => record.level === 'error' && record.message === 'dataset failed to load' && record.fields?.['dataset'] === 'ghost'));
    t.is((await sql('SELECT count(*) FROM orders')).status, 200, 'healthy datasets still answer');
    const ready = await fetch(`${baseUrl}/v1/ready`);
    t.is(ready.status, 503, 'on_load readiness needs every dataset loaded');
  });
});

test('on_registration is ready before accelerated data has loaded; on_load only after', async (t) => {
  // A slow CSV acceleration keeps loading while readiness is checked.
  const rows = Array.from({ length: 400_000 }, (_, i) => `${i},name-${i},${i * 3}`).join('\n');
  const manifest = (readyState: string) => `
datasets:
  - from: file:data/big.csv
    name: big
    acceleration:
      enabled: true
runtime:
  ready_state: ${readyState}
`;
  const files = { 'data/big.csv': `id,name,value\n${rows}\n` };
  for (const readyState of ['on_registration', 'on_load']) {
    const context = await startRuntime({ manifest: manifest(readyState), files, waitForLoad: false });
    try {
      const early = await fetch(`${context.baseUrl}/v1/ready`);
      const earlyState = (await (await fetch(`${context.baseUrl}/v1/datasets`)).json()) as Array<{ status: string }>;
      if (earlyState[0]!.status === 'Initializing') {
        t.is(early.status, readyState === 'on_registration' ? 200 : 503, `${readyState} while loading`);
        // on_registration serves the source live while the acceleration loads
        if (readyState === 'on_registration') t.is((await context.sql('SELECT count(*) FROM big')).status, 200);
      } else {
        t.log(`${readyState}: the dataset loaded before the first check; only the final state is asserted`);
      }
      await context.runtime.whenLoaded();
      const late = await fetch(`${context.baseUrl}/v1/ready`);
      t.is(late.status, 200, `${readyState} after loading`);
      t.is(await late.text(), 'ready');
    } finally {
      await context.runtime.stop();
    }
  }
});

test('refresh reloads an accelerated dataset; unknown and live datasets are refused', async (t) => {
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ baseUrl }) => {
    const refresh = (name: string) => fetch(`${baseUrl}/v1/datasets/${name}/acceleration/refresh`, { method: 'POST' });
    const ok = await refresh('orders');
    t.is(ok.status, 201);
    const body = (await ok.json()) as { message: string; dataset: { status: string } };
    t.is(body.message, 'Dataset orders refreshed.');
    t.is(body.dataset.status, 'Ready');
    const missing = await refresh('nope');
    t.is(missing.status, 404);
    t.deepEqual(await missing.json(), { error: { code: 'DATASET_NOT_FOUND', message: 'dataset "nope" does not exist (datasets: orders, customers)' } });
    const live = await refresh('customers');
    t.is(live.status, 400);
    t.is(((await live.json()) as { error: { code: string } }).error.code, 'DATASET_NOT_ACCELERATED');
  });
});

test('PATCH /v1/datasets/{name}/acceleration sets refresh_sql for later refreshes, as in Spice', async (t) => {
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ baseUrl, sql }) => {
    const count = async () => ((await (await sql('SELECT count(*) AS n FROM orders', { accept: 'application/json', headers: { 'cache-control': 'no-cache' } })).json()) as Array<{ n: number }>)[0]!.n;
    const patch = (name: string, body: string) => fetch(`${baseUrl}/v1/datasets/${name}/acceleration`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body });
    const all = await count();
    const shipped = ((await (await sql("SELECT count(*) AS n FROM orders WHERE status = 'shipped'", { accept: 'application/json' })).json()) as Array<{ n: number }>)[0]!.n;
    t.true(shipped > 0 && shipped < all);

    const patched = await patch('orders', JSON.stringify({ refresh_sql: "SELECT * FROM orders WHERE status = 'shipped'" }));
    t.is(patched.status, 200);
    t.regex(((await patched.json()) as { message: string }).message, /^Dataset orders refresh_sql updated/);
    t.is(await count(), all, 'nothing reloads until the next refresh');
    t.is((await fetch(`${baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' })).status, 201);
    t.is(await count(), shipped, 'the refresh used the new refresh_sql');

    const code = async (response: Response) => [response.status, ((await response.json()) as { error: { code: string } }).error.code];
    t.deepEqual(await code(await patch('nope', '{"refresh_sql": "SELECT 1"}')), [404, 'DATASET_NOT_FOUND']);
    t.deepEqual(await code(await patch('customers', '{"refresh_sql": "SELECT * FROM customers"}')), [400, 'DATASET_NOT_ACCELERATED']);
    t.deepEqual(await code(await patch('orders', '{"refresh_sql": ""}')), [400, 'DATASET_REFRESH_INVALID']);
    t.deepEqual(await code(await patch('orders', '{"refresh_sql": "SELECT 1", "refresh_mode": "full"}')), [400, 'DATASET_REFRESH_INVALID']);
    t.deepEqual(await code(await patch('orders', 'not json')), [400, 'BODY_INVALID_JSON']);
  });
});
