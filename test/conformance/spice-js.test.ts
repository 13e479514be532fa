import test from 'ava';
import { SpiceClient } from '@spiceai/spice';
import { flightEndpointOf, startDaemon, type Daemon } from '../helpers/daemon.js';
import { writeManifestDirectory } from '../helpers/runtime.js';

/**
 * Spice's own JavaScript SDK (@spiceai/spice, a dev dependency: Quarry wrote none of it)
 * against real quarryd processes: each call over the transport the SDK uses for it, Flight
 * forced with `flightOnly` and HTTP with `httpOnly`, so neither can hide behind the SDK's
 * fallback to the other. One runtime has API keys; the SDK sends its key over Flight only
 * on a TLS channel (grpc-js puts call credentials on secure channels only), so the Flight
 * calls run against a second runtime without keys, and the keyed one shows the refusal a
 * plaintext Flight call gets.
 */

const KEY = 'spice-js-writer-key';
const MANIFEST = `version: v1beta1
kind: Spicepod
name: spice_js
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
views:
  - name: orders_per_status
    sql: SELECT status, count(*) AS orders FROM orders GROUP BY status
runtime:
  auth:
    api_key:
      keys:
        - ${KEY}:rw
`;

/** A started runtime and its Flight address as spice.js takes it (host:port). */
interface Served {
  daemon: Daemon;
  flightUrl: string;
}

let keyed: Served;
let open: Served;

async function serve(manifest: string): Promise<Served> {
  const directory = writeManifestDirectory({ manifest, withQuickstartData: true });
  const daemon = await startDaemon([directory]);
  const flightUrl = (await flightEndpointOf(daemon)).replace(/^grpc:\/\//, '');
  while ((await fetch(`${daemon.baseUrl}/v1/ready`)).status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
  return { daemon, flightUrl };
}

test.before(async () => {
  [keyed, open] = await Promise.all([serve(MANIFEST), serve(MANIFEST.slice(0, MANIFEST.indexOf('runtime:')))]);
});

test.after.always(async () => {
  for (const served of [keyed, open]) {
    served?.daemon.child.kill('SIGTERM');
    await served?.daemon.exited;
  }
});

const overFlight = (served: Served, apiKey?: string) => new SpiceClient({ ...(apiKey ? { apiKey } : {}), flightUrl: served.flightUrl, httpUrl: 'http://127.0.0.1:9', flightOnly: true, logging: false });
const overHttp = (apiKey = KEY) => new SpiceClient({ apiKey, httpUrl: keyed.daemon.baseUrl, flightUrl: '127.0.0.1:9', httpOnly: true, logging: false });

const plain = (rows: unknown[]) => JSON.parse(JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value))) as Array<Record<string, unknown>>;

test('sql() over Flight: a query, a view, and parameters bound by the server', async (t) => {
  const client = overFlight(open);
  const table = await client.sql("SELECT count(*) AS n FROM orders WHERE status = 'shipped'");
  t.deepEqual(plain(table.toArray()), [{ n: 878 }]);
  const view = await client.sql('SELECT orders FROM orders_per_status WHERE status = \'shipped\'');
  t.deepEqual(plain(view.toArray()), [{ orders: 878 }]);
  const bound = await client.sql('SELECT order_id, status FROM orders WHERE order_id = $1', { parameters: [3] });
  t.deepEqual(plain(bound.toArray()), [{ order_id: 3, status: 'delivered' }]);
  const listed = plain((await client.sql('SHOW TABLES')).toArray());
  t.true(listed.some((row) => row['table_catalog'] === 'spice' && row['table_name'] === 'orders_per_status'), JSON.stringify(listed));
});

test('sql() over plaintext Flight to a runtime with API keys is refused, saying how to send a key', async (t) => {
  const error = await t.throwsAsync(overFlight(keyed, KEY).sql('SELECT 1'));
  t.regex(String(error?.message), /UNAUTHENTICATED: Missing API key: .*authorization: Bearer <key>/);
});

test('HTTP calls with a wrong key are refused', async (t) => {
  const error = await t.throwsAsync(overHttp('not-the-key').sql('SELECT 1'));
  t.regex(String(error?.message), /401|API_KEY_INVALID/);
});

test('the HTTP calls: sql(), sqlJson(), refreshAcceleration(), readiness and health', async (t) => {
  const client = overHttp();
  t.deepEqual(plain((await client.sql("SELECT count(*) AS n FROM spice.public.orders WHERE status = 'paid'")).toArray()), [{ n: 143 }]);
  const json = await client.sqlJson("SELECT 40 + 2 AS answer, TIMESTAMP '2024-05-01 10:00:00' AS at");
  t.is(json.row_count, 1);
  t.deepEqual(json.schema.fields.map((field: { name: string; data_type: unknown }) => [field.name, field.data_type]), [['answer', 'Int32'], ['at', { Timestamp: ['Microsecond', null] }]]);
  t.is(json.data.length, 1);
  t.is((json.data[0] as Record<string, unknown>)['answer'], 42);
  const refreshed = await client.refreshAcceleration('orders');
  t.regex(String(refreshed.message), /orders/);
  t.true(await client.isSpiceReady());
  t.true(await client.isSpiceHealthy());
});

test('the SDK\'s asynchronous query API is not served: the SDK reports the 404 Quarry answers', async (t) => {
  const error = await t.throwsAsync(overHttp().query('SELECT 1'));
  t.regex(String(error?.message), /404.*ROUTE_NOT_FOUND/);
});
