import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { ownedPartitionCounts, type ClusterDocument } from '../../plugins/scheduler/cluster-document.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';
import { createTestPki, type TestPki } from '../helpers/certificates.js';
import { runCommand, startDaemon, type Daemon } from '../helpers/daemon.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';

// Real quarryd processes on loopback: one scheduler, three executors, node traffic over mTLS.
// Serial: four runtimes at once already fill this machine's two cores.

let pki: TestPki;
test.before(() => {
  pki = createTestPki();
});
test.after.always(() => pki.remove());

const INTERVAL = '2s';
const manifest = (state: string) => `
version: v2
kind: Spicepod
name: cluster
runtime:
  scheduler:
    state_location: ${state}
    partition_assignment_interval: ${INTERVAL}
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
      partition_by: 'bucket(12, customer_id)'
`;

const nodeTls = (certificate: { certFile: string; keyFile: string }) => [
  '--node-mtls-ca-certificate-file', pki.ca.certFile,
  '--node-mtls-certificate-file', certificate.certFile,
  '--node-mtls-key-file', certificate.keyFile,
];

async function rowCount(daemon: Daemon, sql: string): Promise<number> {
  const response = await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: sql });
  const rows = await response.json() as Array<{ n: number }>;
  return rows[0]!.n;
}

const everyOwned = (document: ClusterDocument, owners: number) => {
  const partitions = Object.values(document.datasets['orders']?.partitions ?? {});
  return partitions.length === 12 && partitions.every((partition) => partition.owner !== null) && ownedPartitionCounts(document).size === owners;
};

test.serial('executors fetch the app definition over mTLS, load only the partitions they own, and a killed one\'s partitions move to the others', async (t) => {
  const stateDirectory = mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-state-'));
  const manifestDirectory = writeManifestDirectory({ manifest: manifest(`${pathToFileURL(stateDirectory).href}/`), withQuickstartData: true });
  const daemons: Daemon[] = [];
  try {
    const started = await spawnScheduler([manifestDirectory, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--node-advertise-address', 'scheduler-1', ...nodeTls(pki.node)]);
    daemons.push(started.daemon);
    const nodeEndpoint = started.nodeEndpoint;
    for (const name of ['executor-a', 'executor-b', 'executor-c']) {
      // No manifest: each fetches the app definition from the scheduler.
      daemons.push(await startDaemon(['--scheduler-address', `grpc://${nodeEndpoint}`, '--node-advertise-address', name, ...nodeTls(pki.node)]));
    }
    const [, a, b, c] = daemons as [Daemon, Daemon, Daemon, Daemon];
    const scheduler = await started.http();
    const state = new ClusterState(new FileObjectStore(stateDirectory));
    const document = await waitFor(() => state.read(), (current) => everyOwned(current, 3), 'all 12 partitions owned by the 3 executors');
    t.deepEqual(Object.fromEntries(ownedPartitionCounts(document)), { 'executor-a': 4, 'executor-b': 4, 'executor-c': 4 });
    t.deepEqual(Object.keys(document.members).sort(), ['executor-a', 'executor-b', 'executor-c', 'scheduler-1']);

    // The executors' manifest came without runtime.scheduler (the state store stays with schedulers).
    const fetched = /quarry-executor-[^/\s]+\/quarry\.yaml/.exec(a.output());
    t.truthy(fetched, 'the executor loaded a fetched app definition');
    t.notRegex(readFileSync(path.join(os.tmpdir(), fetched![0]), 'utf8'), /scheduler|state_location/);

    // Each executor holds exactly the rows of its own buckets; together, all rows once.
    // The reference count, read from the data file itself.
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const total = Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM '${path.join(manifestDirectory, 'data/orders.parquet')}'`)).getRowObjectsJS()[0]!['n']);
    connection.closeSync();
    instance.closeSync();
    const counts = await waitFor(async () => Promise.all([a, b, c].map((executor) => rowCount(executor, 'SELECT count(*)::INTEGER AS n FROM orders'))), (values) => values.reduce((sum, value) => sum + value, 0) === total && values.every((value) => value > 0), 'executors loaded their shares');
    t.log(`rows per executor: ${counts.join(', ')} of ${total}`);
    t.is(await waitFor(() => rowCount(scheduler, 'SELECT count(*)::INTEGER AS n FROM orders'), (n) => n === total, 'the scheduler counts every row through the executors'), total);
    for (const [index, executor] of [a, b, c].entries()) {
      const name = ['executor-a', 'executor-b', 'executor-c'][index]!;
      const owned = Object.values(document.datasets['orders']!.partitions).filter((partition) => partition.owner === name).map((partition) => partition.values[0]);
      t.is(await rowCount(executor, `SELECT count(*)::INTEGER AS n FROM orders WHERE CAST(hash(customer_id) % 12 AS INTEGER) NOT IN (${owned.join(',')})`), 0, `${name} holds no row of another executor's bucket`);
    }

    // An executor's /v1/status names its role and what it owns.
    const executorStatus = await (await fetch(`${a.baseUrl}/v1/status`)).json() as Array<{ name: string; endpoint: string; status: string }>;
    t.like(executorStatus.find((entry) => entry.name === 'cluster'), { endpoint: 'executor-a (executor, 4 orders)', status: 'Ready' });

    // kill -9 one executor: within its heartbeat ttl plus one interval its 4 buckets move.
    const killedAt = Date.now();
    b.child.kill('SIGKILL');
    await b.exited;
    const after = await waitFor(() => state.read(), (current) => everyOwned(current, 2), 'partitions reassigned to the 2 live executors', 30_000);
    const movedWithinMs = Date.now() - killedAt;
    t.log(`partitions of the killed executor reassigned after ${movedWithinMs} ms (interval ${INTERVAL}, heartbeat ttl = interval)`);
    t.deepEqual(Object.fromEntries(ownedPartitionCounts(after)), { 'executor-a': 6, 'executor-c': 6 });
    await waitFor(async () => (await rowCount(a, 'SELECT count(*)::INTEGER AS n FROM orders')) + (await rowCount(c, 'SELECT count(*)::INTEGER AS n FROM orders')), (sum) => sum === total, 'the 2 live executors reloaded to hold every row');
    t.pass();
  } finally {
    await stopAll(daemons);
    rmSync(stateDirectory, { recursive: true, force: true });
    rmSync(manifestDirectory, { recursive: true, force: true });
  }
});

test.serial('an executor with a certificate from another CA is refused; plaintext needs the explicit flag', async (t) => {
  const stateDirectory = mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-state-'));
  const manifestDirectory = writeManifestDirectory({ manifest: manifest(`${pathToFileURL(stateDirectory).href}/`), withQuickstartData: true });
  let scheduler: Daemon | undefined;
  try {
    const started = await spawnScheduler([manifestDirectory, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', ...nodeTls(pki.node)]);
    scheduler = started.daemon;
    const nodeEndpoint = started.nodeEndpoint;
    const foreign = await runCommand('quarryd', ['--scheduler-address', `grpc://${nodeEndpoint}`, ...nodeTls(pki.foreignClient).slice(0, 2), '--node-mtls-certificate-file', pki.foreignClient.certFile, '--node-mtls-key-file', pki.foreignClient.keyFile, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0']);
    t.is(foreign.code, 1);
    t.regex(foreign.stderr, /error \[CLUSTER_NODE_UNREACHABLE\]: no scheduler gave the app definition: scheduler 127\.0\.0\.1:\d+:/);
    const plaintext = await runCommand('quarryd', ['--scheduler-address', `grpc://${nodeEndpoint}`, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0']);
    t.is(plaintext.code, 1);
    t.regex(plaintext.stderr, /error \[CLUSTER_CONFIG_INVALID\]: node-to-node connections are mutually authenticated TLS: pass --node-mtls-ca-certificate-file, --node-mtls-certificate-file, --node-mtls-key-file/);
    const insecureToTls = await runCommand('quarryd', ['--scheduler-address', `grpc://${nodeEndpoint}`, '--allow-insecure-connections', '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0']);
    t.is(insecureToTls.code, 1, 'a plaintext client cannot talk to an mTLS scheduler');
    t.regex(insecureToTls.stderr, /CLUSTER_NODE_UNREACHABLE/);
  } finally {
    scheduler?.child.kill('SIGTERM');
    await scheduler?.exited;
    rmSync(stateDirectory, { recursive: true, force: true });
    rmSync(manifestDirectory, { recursive: true, force: true });
  }
});
