import { statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { LoadProgressStatus } from '../../core/engine/load-progress.js';
import { HeldScan, heldPlugin } from '../helpers/held-connector.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { parseSamples, sampleValue, withTelemetryRuntime } from '../telemetry/helpers.js';
import { runQuarry, startQuarry } from '../cli/helpers/cli-process.js';

/**
 * A load in progress, as operators see it: `/v1/datasets` (`progress`), the log line every few
 * seconds, the `dataset_load_rows` / `dataset_load_bytes` metrics, and the
 * `x-quarry-served-from: source` header on answers the source gave meanwhile. The source is a
 * real connector plugin whose first scan (the load's) hands over one batch, then waits for the
 * test; every later scan (a query reading the source live meanwhile) answers at once.
 */

interface DatasetEntry {
  name: string;
  status: string;
  progress: LoadProgressStatus | null;
  served_from: string;
  last_load: { kind: string; rows: number | null; bytes: number | null } | null;
}

async function dataset(baseUrl: string, name: string): Promise<DatasetEntry> {
  const list = (await (await fetch(`${baseUrl}/v1/datasets`)).json()) as DatasetEntry[];
  return list.find((entry) => entry.name === name)!;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const manifest = `datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
  - from: held:numbers
    name: numbers
    acceleration:
      enabled: true
`;

test('a load in progress shows its rows, total, percent and ETA in /v1/datasets, the log and the metrics; answers meanwhile say the source gave them', async (t) => {
  const held = new HeldScan();
  await withTelemetryRuntime(t, { manifest, metrics: true, flight: true, waitForLoad: false, withQuickstartData: true, bundle: [...defaultPlugins(), heldPlugin(held)] }, async (context) => {
    const { baseUrl, runtime } = context;
    const loading = await until('the first batch counted', () => dataset(baseUrl, 'numbers'), (entry) => entry.progress?.rows_read === 1000 && entry.progress.rows_total === 4000);
    t.is(loading.status, 'Initializing');
    t.is(loading.served_from, 'source');
    t.like(loading.progress, { kind: 'load', phase: 'fetching', rows_read: 1000, rows_total: 4000, percent: 25 });
    t.true(loading.progress!.bytes_read! >= 4000, 'a thousand Int32 values are at least 4000 Arrow bytes');
    t.false(Number.isNaN(Date.parse(loading.progress!.started_at)));

    const samples = parseSamples(await context.scrape());
    t.is(sampleValue(samples, 'dataset_load_rows', { dataset: 'numbers' }), 1000);
    t.true(sampleValue(samples, 'dataset_load_bytes', { dataset: 'numbers' })! >= 4000);

    // The accelerated copy is not there yet: the source answers, and the response says so.
    const meanwhile = await context.sql('SELECT count(*) AS n FROM numbers', { accept: 'application/json' });
    t.is(meanwhile.status, 200);
    t.is(meanwhile.headers.get('x-quarry-served-from'), 'source');
    t.is(meanwhile.headers.get('x-quarry-loading'), 'numbers');
    t.deepEqual(await meanwhile.json(), [{ n: 1000 }]);

    // The log says where the load is every few seconds, at the default level.
    const line = await until('a progress line in the log', async () => context.logs.find((record) => record.message === 'dataset loading'), (record) => record !== undefined, 20_000);
    t.is(line!.level, 'info');
    t.like(line!.fields, { dataset: 'numbers', phase: 'fetching', rows_read: 1000, rows_total: 4000, percent: 25 });

    // The quarry client says so too: in the table's footer, and on stderr beside JSON.
    const table = await runQuarry(['sql', '-e', 'SELECT count(*) AS n FROM numbers', '--endpoint', baseUrl]);
    t.regex(table.stdout, /1 row\. \(answered by the source: numbers still loading into its acceleration\)\n$/);
    const overFlight = await runQuarry(['sql', '-e', 'SELECT min(id) AS bottom FROM numbers', '--endpoint', `grpc://${runtime.flightEndpoint}`]);
    t.regex(overFlight.stdout, /1 row\. \(answered by the source: numbers still loading into its acceleration\)\n$/, 'over Flight, in the response metadata');
    // (Other SQL than before: the same text would be a results-cache hit, which the cache answers, not the source.)
    const json = await runQuarry(['sql', '-e', 'SELECT max(id) AS top FROM numbers', '-o', 'json', '--endpoint', baseUrl]);
    t.is(json.stdout, '[{"top":999}]\n');
    t.is(json.stderr, 'Note: (answered by the source: numbers still loading into its acceleration)\n');

    // `quarry status --watch` redraws the bar until the load is done, then shows what it loaded.
    const watching = startQuarry(['status', '--watch', '--endpoint', baseUrl]);
    await watching.waitForOutput('fetching [█████░░░░░░░░░░░░░░░]  25.0%  1,000 / 4,000 rows');
    t.regex(watching.stdout, /numbers +Initializing +yes +fetching \[/);
    t.true(watching.stdout.includes('(queries answered by the source meanwhile)'));

    held.release();
    await runtime.whenLoaded();
    await watching.waitForOutput('loaded 4,000 rows');
    t.regex(watching.stdout, /numbers +Ready +yes +loaded 4,000 rows, [\d.]+ KiB in \d+s at \d\d:\d\d:\d\d\n/);
    watching.signal('SIGINT');
    const watched = await watching.exited;
    t.is(watched.code, 0, watched.stderr);
    t.regex(watched.stdout, /^--- \d\d:\d\d:\d\d ---\nNAME /, 'in a pipe, frame after frame, each under its time');
    const loaded = await dataset(baseUrl, 'numbers');
    t.is(loaded.status, 'Ready');
    t.is(loaded.progress, null);
    t.is(loaded.served_from, 'acceleration');
    const after = await context.sql('SELECT count(*) AS n FROM numbers', { accept: 'application/json' });
    t.is(after.headers.get('x-quarry-served-from'), null);
    t.deepEqual(await after.json(), [{ n: 4000 }]);
    // The last load's figures stay: the rows it wrote, the bytes it fetched.
    t.like(loaded.last_load, { kind: 'load', rows: 4000 });
    t.true(loaded.last_load!.bytes! >= 16_000);
    const finished = parseSamples(await context.scrape());
    t.is(sampleValue(finished, 'dataset_load_rows', { dataset: 'numbers' }), 4000);
    t.is(sampleValue(finished, 'dataset_load_bytes', { dataset: 'numbers' }), loaded.last_load!.bytes!);
    t.like(context.logs.find((record) => record.message === 'dataset loaded' && record.fields?.['dataset'] === 'numbers')?.fields, { rows: 4000, bytes: loaded.last_load!.bytes });
    // A file the engine reads: the rows its CREATE TABLE wrote, the file's size.
    const orders = await dataset(baseUrl, 'orders');
    const [{ n }] = (await (await context.sql('SELECT count(*)::INTEGER AS n FROM orders', { accept: 'application/json' })).json()) as [{ n: number }];
    t.like(orders.last_load, { kind: 'load', rows: n, bytes: statSync(path.join(context.directory, 'data', 'orders.parquet')).size });
  });
});
