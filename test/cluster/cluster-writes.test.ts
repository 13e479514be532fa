import test from 'ava';
import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tableFromArrays } from 'apache-arrow';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';
import { WriteLog } from '../../plugins/scheduler/writes/write-log.js';
import type { ClusterDocument } from '../../plugins/scheduler/cluster-document.js';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { FlightDescriptor_DescriptorType } from '../../core/flight/generated/arrow/flight/protocol/flight_pb.js';
import { createTestPki, type IssuedCertificate, type TestPki } from '../helpers/certificates.js';
import { flightEndpointOf, startDaemon, type Daemon } from '../helpers/daemon.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';

// Real quarryd processes, node traffic over mutual TLS and API keys on: writes on a scheduler
// land on the executor owning each row's partition (bucket(4, customer_id)), through the
// executors' node listeners; the executors' public listeners still demand a key; a read-only
// dataset refuses as on a single node; a partition whose owner is gone fails the whole write;
// accepted rows survive a kill -9 of their executor (the write log in the state store).

let pki: TestPki;
test.before(() => {
  pki = createTestPki();
});
test.after.always(() => pki.remove());

const KEY = 'cluster-writes-test-key';

const manifest = (state: string) => `version: v2
kind: Spicepod
name: cluster-writes
runtime:
  auth:
    api-key:
      enabled: true
      keys: ["${KEY}:rw"]
  scheduler:
    state_location: ${state}
    partition_assignment_interval: 2s
datasets:
  - from: file:data/orders.parquet
    name: orders
    access: read_write
    acceleration:
      enabled: true
      partition_by: 'bucket(4, customer_id)'
  - from: file:data/orders.parquet
    name: orders_ro
    acceleration:
      enabled: true
      partition_by: 'bucket(2, customer_id)'
`;

const BASE_ROWS = 5000;

const nodeTls = (certificate: IssuedCertificate) => [
  '--node-mtls-ca-certificate-file', pki.ca.certFile,
  '--node-mtls-certificate-file', certificate.certFile,
  '--node-mtls-key-file', certificate.keyFile,
];

/** A Flight SQL client of an executor's node listener: with a node certificate, only the CA, or another CA's certificate. */
function nodeListenerClient(address: string, certificate: IssuedCertificate | undefined): FlightSqlClient {
  const channelCredentials = certificate === undefined
    ? grpc.credentials.createSsl(Buffer.from(pki.ca.cert))
    : grpc.credentials.createSsl(Buffer.from(pki.ca.cert), Buffer.from(certificate.key), Buffer.from(certificate.cert));
  return FlightSqlClient.connect({ endpoint: address, channelCredentials });
}

async function sql(daemon: Daemon, text: string, key: string | null = KEY): Promise<{ status: number; body: string }> {
  const response = await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: text, headers: key === null ? {} : { 'x-api-key': key } });
  return { status: response.status, body: await response.text() };
}

function ownersOf(document: ClusterDocument, dataset: string): Map<number, string> {
  return new Map(Object.values(document.datasets[dataset]!.partitions).map((partition) => [partition.values[0] as number, partition.owner!]));
}

test.serial('writes on a scheduler go over mTLS to the owner of each row\'s partition; node listeners refuse peers without a node certificate; no live owner → the write fails; accepted rows survive kill -9 of their owner', async (t) => {
  const stateDirectory = mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-state-'));
  const directory = writeManifestDirectory({ manifest: manifest(`${pathToFileURL(stateDirectory).href}/`), withQuickstartData: true });
  const processes: Daemon[] = [];
  const clients: FlightSqlClient[] = [];
  try {
    const started = await spawnScheduler([directory, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', ...nodeTls(pki.node), '-v']);
    processes.push(started.daemon);
    const names = ['executor-a', 'executor-b'];
    const executors: Daemon[] = [];
    for (const name of names) {
      const executor = await startDaemon(['--scheduler-address', `grpc://${started.nodeEndpoint}`, '--node-advertise-address', name, '--node-bind-address', '127.0.0.1:0', ...nodeTls(pki.node)]);
      executors.push(executor);
      processes.push(executor);
    }
    const scheduler = await started.http();
    const state = new ClusterState(new FileObjectStore(stateDirectory));
    const document = await waitFor(() => state.read(), (current) => Object.keys(current.datasets).length === 2 && Object.values(current.datasets).every((entry) => Object.values(entry.partitions).length > 0 && Object.values(entry.partitions).every((partition) => partition.owner !== null)) && new Set(Object.values(current.datasets['orders']!.partitions).map((partition) => partition.owner)).size === 2, 'every partition owned by one of 2 executors');
    // Scans go to the executors' node listeners (mTLS, no API key) while the scheduler itself demands a key.
    await waitFor(() => sql(scheduler, 'SELECT count(*) AS n FROM orders'), (answer) => answer.body === `[{"n":${BASE_ROWS}}]`, 'executors loaded their shares');
    t.is((await sql(scheduler, 'SELECT count(*) AS n FROM orders', null)).status, 401, 'the scheduler\'s own listener still demands a key');
    const owners = ownersOf(document, 'orders');
    const addresses = Object.fromEntries(names.map((name) => [name, document.members[name]!.address]));
    t.true(names.every((name) => /^127\.0\.0\.1:\d+$/.test(addresses[name]!)), `members advertise their node listeners: ${JSON.stringify(addresses)}`);

    // An executor's public Flight listener keeps the manifest's auth: no key, no answer.
    const publicFlight = FlightSqlClient.connect({ endpoint: await flightEndpointOf(executors[0]!) });
    clients.push(publicFlight);
    const keyless = await publicFlight.query('SELECT count(*) AS n FROM orders').then(() => undefined, (error: Error) => error);
    t.regex(String(keyless?.message), /API_KEY_MISSING|Missing API key/);
    const keyed = FlightSqlClient.connect({ endpoint: await flightEndpointOf(executors[0]!), token: KEY });
    clients.push(keyed);
    t.true(Number((await keyed.query('SELECT count(*) AS n FROM orders')).table.get(0)!['n']) > 0, 'with a key the public listener answers');

    // A node listener serves only peers with a node certificate: none, or one from another CA, is refused in the handshake.
    for (const [what, certificate] of [['no client certificate', undefined], ['a certificate from another CA', pki.foreignClient]] as const) {
      const stranger = nodeListenerClient(addresses['executor-a']!, certificate);
      clients.push(stranger);
      const refused = await stranger.query('SELECT count(*) AS n FROM orders').then(() => undefined, (error: Error & { code?: number }) => error);
      t.truthy(refused, `${what}: refused`);
      t.is((refused as { code?: number } | undefined)?.code, grpc.status.UNAVAILABLE, `${what}: the TLS handshake fails (${refused?.message})`);
    }

    // INSERT of 12 rows spanning every bucket.
    const values = Array.from({ length: 12 }, (_, index) => `(${9_000_001 + index}, ${100_001 + index}, 'new', ${index + 1})`).join(', ');
    const inserted = await sql(scheduler, `INSERT INTO orders (order_id, customer_id, status, quantity) VALUES ${values}`);
    t.is(inserted.status, 200, inserted.body);
    t.deepEqual(JSON.parse(inserted.body), [{ Count: 12 }]);
    const back = await sql(scheduler, 'SELECT order_id, customer_id FROM orders WHERE order_id > 9000000 ORDER BY order_id');
    t.deepEqual((JSON.parse(back.body) as Array<{ order_id: number }>).map((row) => row.order_id), Array.from({ length: 12 }, (_, index) => 9_000_001 + index));
    t.is((await sql(scheduler, 'SELECT count(*) AS n FROM orders')).body, `[{"n":${BASE_ROWS + 12}}]`, 'the scheduler\'s cache was invalidated by the write');

    // Each executor holds only rows of the buckets it owns (read over its node listener, with a node certificate).
    const peers = names.map((name) => nodeListenerClient(addresses[name]!, pki.node));
    clients.push(...peers);
    const held = new Map<string, number[]>();
    for (const [index, name] of names.entries()) {
      const { table } = await peers[index]!.query('SELECT order_id, CAST(hash(customer_id) % 4 AS INTEGER) AS b FROM orders WHERE order_id > 9000000 ORDER BY order_id');
      const rows = table.toArray().map((row) => ({ order_id: Number(row['order_id']), b: Number(row['b']) }));
      t.true(rows.every((row) => owners.get(row.b) === name), `${name} holds only rows of its own buckets`);
      held.set(name, rows.map((row) => row.order_id));
    }
    t.true(names.every((name) => held.get(name)!.length > 0), 'both executors received rows');
    t.is(names.reduce((sum, name) => sum + held.get(name)!.length, 0), 12, 'each row landed once');

    // Flight SQL ingest into the scheduler is routed the same way.
    const flight = FlightSqlClient.connect({ endpoint: await flightEndpointOf(started.daemon), token: KEY });
    clients.push(flight);
    const upload = tableFromArrays({ order_id: BigInt64Array.from([9_100_001n, 9_100_002n, 9_100_003n, 9_100_004n]), customer_id: BigInt64Array.from([200_001n, 200_002n, 200_003n, 200_004n]) });
    t.is(await flight.ingest('orders', { schema: upload.schema, batches: upload.batches }), 4n);
    t.is((await sql(scheduler, 'SELECT count(*) AS n FROM orders WHERE order_id > 9100000')).body, '[{"n":4}]');
    let ingested = 0;
    for (const [index, name] of names.entries()) {
      const { table } = await peers[index]!.query('SELECT CAST(hash(customer_id) % 4 AS INTEGER) AS b FROM orders WHERE order_id > 9100000');
      const buckets = table.toArray().map((row) => Number(row['b']));
      t.true(buckets.every((bucket) => owners.get(bucket) === name), `ingested rows on ${name} are of its own buckets`);
      ingested += buckets.length;
    }
    t.is(ingested, 4);

    // A Flight SQL INSERT (CommandStatementUpdate) on the scheduler is routed like the HTTP one.
    t.is(await flight.executeUpdate('INSERT INTO orders (order_id, customer_id) VALUES (9150001, 250001), (9150002, 250002), (9150003, 250003), (9150004, 250004)'), 4n);
    let updated = 0;
    for (const [index, name] of names.entries()) {
      const { table } = await peers[index]!.query('SELECT CAST(hash(customer_id) % 4 AS INTEGER) AS b FROM orders WHERE order_id BETWEEN 9150001 AND 9150004');
      const buckets = table.toArray().map((row) => Number(row['b']));
      t.true(buckets.every((bucket) => owners.get(bucket) === name), `rows inserted over Flight SQL on ${name} are of its own buckets`);
      updated += buckets.length;
    }
    t.is(updated, 4, 'each row inserted over Flight SQL landed once');

    // A plain Flight DoPut with a PATH descriptor naming the dataset is routed the same way.
    const pathUpload = tableFromArrays({ order_id: BigInt64Array.from([9_160_001n, 9_160_002n]), customer_id: BigInt64Array.from([260_001n, 260_002n]) });
    await flight.flight.doPut({ type: FlightDescriptor_DescriptorType.PATH, path: ['orders'] }, { schema: pathUpload.schema, batches: pathUpload.batches });
    let appended = 0;
    for (const [index, name] of names.entries()) {
      const { table } = await peers[index]!.query('SELECT CAST(hash(customer_id) % 4 AS INTEGER) AS b FROM orders WHERE order_id BETWEEN 9160001 AND 9160002');
      const buckets = table.toArray().map((row) => Number(row['b']));
      t.true(buckets.every((bucket) => owners.get(bucket) === name), `rows put over a PATH descriptor on ${name} are of its own buckets`);
      appended += buckets.length;
    }
    t.is(appended, 2, 'each row put over a PATH descriptor landed once');

    // A dataset without access: read_write is refused as on a single node: 403 WRITE_NOT_ALLOWED.
    const refused = await sql(scheduler, 'INSERT INTO orders_ro (order_id, customer_id) VALUES (1, 1)');
    t.is(refused.status, 403, refused.body);
    t.like(JSON.parse(refused.body), { error: { code: 'WRITE_NOT_ALLOWED', message: 'INSERT refused: dataset "orders_ro" is read-only; set access: read_write on it to accept writes' } });
    const refusedIngest = await flight.ingest('orders_ro', { schema: upload.schema, batches: upload.batches }).then(() => undefined, (error: Error) => error);
    t.regex(String(refusedIngest?.message), /WRITE_NOT_ALLOWED|read-only/);
    t.is((await sql(scheduler, 'SELECT count(*) AS n FROM orders_ro WHERE order_id = 1')).body, '[{"n":1}]', 'the original row only');

    // Accepted writes are in the write log of the state store, one entry per executor per write.
    const writeLog = new WriteLog(new FileObjectStore(stateDirectory));
    const accepted = await writeLog.entries('orders');
    t.is(accepted.reduce((sum, entry) => sum + entry.rows, 0), 22, 'the 12 + 4 inserted, 4 ingested and 2 put rows are recorded');

    // kill -9 one executor: a write touching its partitions fails as a whole, naming the partition or the executor.
    const victim = 'executor-a';
    executors[0]!.child.kill('SIGKILL');
    await executors[0]!.exited;
    const failed = await sql(scheduler, `INSERT INTO orders (order_id, customer_id) VALUES ${Array.from({ length: 12 }, (_, index) => `(${9_200_001 + index}, ${300_001 + index})`).join(', ')}`);
    t.log(`${failed.status} ${failed.body.slice(0, 300)}`);
    t.is(failed.status, 503, failed.body);
    t.regex(failed.body, new RegExp(`partition\\(s\\) of dataset \\\\"orders\\\\" written to have no live executor: \\[\\d\\]|executor ${victim} cannot take rows of dataset \\\\"orders\\\\"`));
    t.regex(failed.body, /no row was written/);
    t.is(Number((await peers[1]!.query('SELECT count(*) AS n FROM orders WHERE order_id > 9200000')).table.get(0)!['n']), 0, 'the live executor took none of the refused rows');
    t.is((await writeLog.entries('orders')).length, accepted.length, 'a refused write records nothing');

    // The killed executor's partitions move to the survivor, which loads them from the source
    // plus the write log: every accepted row is served again, none twice.
    await waitFor(() => state.read(), (current) => Object.values(current.datasets['orders']!.partitions).every((partition) => partition.owner === 'executor-b'), 'executor-b owns every partition of orders', 30_000);
    const after = await waitFor(() => sql(scheduler, 'SELECT count(*) AS n FROM orders'), (answer) => answer.status === 200, 'the scheduler answers again', 60_000);
    t.is(after.body, `[{"n":${BASE_ROWS + 22}}]`, 'source rows and accepted writes, once each');
    const survived = await sql(scheduler, 'SELECT order_id FROM orders WHERE order_id > 9000000 ORDER BY order_id');
    t.deepEqual((JSON.parse(survived.body) as Array<{ order_id: number }>).map((row) => row.order_id), [...Array.from({ length: 12 }, (_, index) => 9_000_001 + index), 9_100_001, 9_100_002, 9_100_003, 9_100_004, 9_150_001, 9_150_002, 9_150_003, 9_150_004, 9_160_001, 9_160_002]);

    // A write after the move lands on the new owner and in the log.
    const later = await sql(scheduler, 'INSERT INTO orders (order_id, customer_id) VALUES (9300001, 400001), (9300002, 400002)');
    t.is(later.status, 200, later.body);
    t.is((await sql(scheduler, 'SELECT count(*) AS n FROM orders WHERE order_id > 9000000')).body, '[{"n":24}]');
    t.is((await writeLog.entries('orders')).reduce((sum, entry) => sum + entry.rows, 0), 24);
  } finally {
    for (const client of clients) client.close();
    await stopAll(processes);
    for (const path_ of [stateDirectory, directory]) rmSync(path_, { recursive: true, force: true });
  }
});
