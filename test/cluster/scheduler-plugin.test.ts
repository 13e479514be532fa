import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createLogger, type LogRecord } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import type { ClusterNodeOptions } from '../../core/plugins/types.js';
import { Runtime } from '../../core/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { checkClusterManifest } from '../../plugins/scheduler/cluster-config.js';
import { ownedPartitionCounts } from '../../plugins/scheduler/cluster-document.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';
import { Membership } from '../../plugins/scheduler/membership.js';
import { withRuntime, writeManifestDirectory } from '../helpers/runtime.js';

const stateDirectory = () => mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-state-'));
const stateUri = (directory: string) => `${pathToFileURL(directory).href}/`;

const clusterManifest = (state: string, partitionBy: string) => `
version: v2
kind: Spicepod
name: cluster
runtime:
  scheduler:
    state_location: ${state}
    partition_assignment_interval: 300ms
    max_partition_assignments_per_interval: 5
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
      partition_by: ${partitionBy}
  - from: file:data/customers.csv
    name: customers
`;

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a scheduler discovers bucket partitions and assigns them to live executors, a few per round, balanced', async (t) => {
  const directory = stateDirectory();
  const state = new ClusterState(new FileObjectStore(directory));
  const executors = ['executor-a', 'executor-b'].map((id) => new Membership({ state, nodeId: id, role: 'executor', address: id, ttlMs: 5_000 }));
  for (const executor of executors) await executor.start();
  try {
    await withRuntime(t, { manifest: clusterManifest(stateUri(directory), "'bucket(12, customer_id)'"), withQuickstartData: true }, async ({ runtime, logs, baseUrl }) => {
      const document = await waitFor(() => state.read(), (current) => Object.values(current.datasets['orders']?.partitions ?? {}).every((partition) => partition.owner !== null) && Object.keys(current.datasets['orders']?.partitions ?? {}).length === 12);
      t.deepEqual(Object.fromEntries(ownedPartitionCounts(document)), { 'executor-a': 6, 'executor-b': 6 });
      t.deepEqual(document.datasets['orders']!.partition_by, ['bucket(12, customer_id)']);
      t.is(document.datasets['customers'], undefined, 'a dataset read live is not partitioned');
      const scheduler = Object.entries(document.members).find(([, member]) => member.role === 'scheduler');
      t.truthy(scheduler, 'the scheduler joined as a member');
      t.true(document.revision >= 4, 'at most 5 assignments per round: 12 partitions took several rounds');
      const rounds = logs.filter((record) => record.message === 'partitions assigned');
      t.true(rounds.every((record) => (record.fields?.['assigned'] as number) <= 5));
      t.is(runtime.metrics.value('scheduler_active_executors_count'), 2);
      t.is(runtime.metrics.value('scheduler_executor_assignments', { executor: 'executor-a' }), 6);
      t.is(runtime.metrics.value('node_status', { node_id: 'executor-b', role: 'executor' }), 1);

      // Operations: the executor quorum gate of /v1/ready, nodes in /v1/status and /v1/cluster.
      const ready = async (query: string) => {
        const response = await fetch(`${baseUrl}/v1/ready?${query}`);
        return `${response.status} ${await response.text()}`;
      };
      t.is(await ready('min_ready_executors=2'), '200 ready');
      t.is(await ready('min_ready_executors=3'), '503 not ready');
      t.is(await ready('min_ready_executors_percent=100'), '200 ready');
      t.is(await ready('min_ready_executors_percent=150'), '400 min_ready_executors_percent must be between 0 and 100');
      t.is(await ready('min_ready_executors=-1'), '400 min_ready_executors must be a whole number of 0 or more, got "-1"');
      const status = await (await fetch(`${baseUrl}/v1/status`)).json() as Array<{ name: string; endpoint: string; status: string }>;
      const cluster = status.find((entry) => entry.name === 'cluster');
      t.is(cluster?.status, 'Ready');
      t.regex(cluster!.endpoint, /executor-a \(executor, 6 orders\); executor-b \(executor, 6 orders\)/);
      const nodes = (await (await fetch(`${baseUrl}/v1/cluster`)).json() as { nodes: Array<{ node_id: string; role: string; live: boolean; partitions: Record<string, number> }> }).nodes;
      t.deepEqual(nodes.filter((node) => node.role === 'executor'), [
        { node_id: 'executor-a', role: 'executor', address: 'executor-a', live: true, partitions: { orders: 6 } },
        { node_id: 'executor-b', role: 'executor', address: 'executor-b', live: true, partitions: { orders: 6 } },
      ]);
      await executors[1]!.stop();
      t.is(await ready('min_ready_executors_percent=100'), '503 not ready', 'one of two executors left: 50%');
    });
  } finally {
    for (const executor of executors) await executor.stop();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('expression partitions are the distinct values of the expression, read from the loaded dataset', async (t) => {
  const directory = stateDirectory();
  const state = new ClusterState(new FileObjectStore(directory));
  const first = new Membership({ state, nodeId: 'executor-a', role: 'executor', address: 'a', ttlMs: 5_000 });
  await first.start();
  try {
    await withRuntime(t, { manifest: clusterManifest(stateUri(directory), 'status'), withQuickstartData: true }, async ({ sql }) => {
      const statuses = (await (await sql('SELECT DISTINCT status FROM orders ORDER BY 1')).json() as Array<{ status: string }>).map((row) => JSON.stringify([row.status]));
      const document = await waitFor(() => state.read(), (current) => Object.keys(current.datasets['orders']?.partitions ?? {}).length === statuses.length && Object.values(current.datasets['orders']!.partitions).every((partition) => partition.owner === 'executor-a'));
      t.deepEqual(Object.keys(document.datasets['orders']!.partitions).sort(), statuses.sort());
    });
  } finally {
    await first.stop();
    rmSync(directory, { recursive: true, force: true });
  }
});

test('cluster mode: an accelerated dataset without partition_by stops start-up with its name', async (t) => {
  const directory = stateDirectory();
  const manifestDirectory = writeManifestDirectory({
    manifest: clusterManifest(stateUri(directory), 'status').replace('      partition_by: status\n', ''),
    withQuickstartData: true,
  });
  try {
    const loaded = await loadManifest({ path: manifestDirectory, bundle: defaultPlugins() });
    const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log: createLogger({ sink: () => {} }), http: '127.0.0.1:0', flight: false });
    await t.throwsAsync(runtime.start(), { message: /Accelerated dataset "orders" has no partition keys configured: in cluster mode every accelerated dataset declares acceleration.partition_by/ });
    await runtime.stop().catch(() => {});
  } finally {
    rmSync(directory, { recursive: true, force: true });
    rmSync(manifestDirectory, { recursive: true, force: true });
  }
});

const executorFlags: ClusterNodeOptions = {
  role: 'executor',
  schedulerAddresses: ['grpc://127.0.0.1:50052'],
  nodeBindAddress: undefined,
  nodeAdvertiseAddress: undefined,
  mtlsCaCertificateFile: undefined,
  mtlsCertificateFile: undefined,
  mtlsKeyFile: undefined,
  allowInsecureConnections: true,
};

test('runtime.scheduler on an executor is a warning; --role scheduler without it is an error', async (t) => {
  const manifestDirectory = writeManifestDirectory({ manifest: clusterManifest('file:///tmp/quarry-unused/', "'bucket(4, customer_id)'"), withQuickstartData: true });
  try {
    const loaded = await loadManifest({ path: manifestDirectory, bundle: defaultPlugins() });
    const checked = checkClusterManifest(loaded.manifest, 'executor', true);
    t.deepEqual(checked.warnings, ['runtime.scheduler applies only to a scheduler; this node runs as an executor (--role executor), so the section is ignored']);
    t.is(checked.datasets[0]!.name, 'orders');
    t.throws(() => checkClusterManifest(loaded.manifest, 'scheduler', false), { code: 'CLUSTER_CONFIG_INVALID', message: /runtime.scheduler.state_location is required on a scheduler \(--role scheduler\)/ });
    t.deepEqual(checkClusterManifest(loaded.manifest, undefined, false).warnings, ['dataset "orders": acceleration.partition_by has no effect on a single node (it applies in cluster mode)']);
    // Through a runtime: the warning is logged and start-up goes on.
    const logs: LogRecord[] = [];
    const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log: createLogger({ sink: (record) => logs.push(record) }), http: '127.0.0.1:0', flight: false, cluster: executorFlags });
    await runtime.start();
    await runtime.stop();
    t.true(logs.some((record) => record.level === 'warn' && /runtime.scheduler applies only to a scheduler/.test(record.message)));
  } finally {
    rmSync(manifestDirectory, { recursive: true, force: true });
  }
});

test('a bad partition_by is refused at start-up with the dataset and the rule', async (t) => {
  const manifestDirectory = writeManifestDirectory({ manifest: clusterManifest('file:///tmp/quarry-unused/', "'bucket(0, customer_id)'"), withQuickstartData: true });
  try {
    const loaded = await loadManifest({ path: manifestDirectory, bundle: defaultPlugins() });
    const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log: createLogger({ sink: () => {} }), http: '127.0.0.1:0', flight: false });
    await t.throwsAsync(runtime.start(), { message: /dataset "orders": partition_by "bucket\(0, customer_id\)": the bucket count must be a whole number from 1 to 1000000/ });
    await runtime.stop().catch(() => {});
  } finally {
    rmSync(manifestDirectory, { recursive: true, force: true });
  }
});

test('the executor quorum gate on a node that is not a scheduler is a 400', async (t) => {
  await withRuntime(t, { manifest: 'version: v2\nkind: Spicepod\nname: single\n' }, async ({ baseUrl }) => {
    const response = await fetch(`${baseUrl}/v1/ready?min_ready_executors=1`);
    t.is(response.status, 400);
    t.is(await response.text(), 'min_ready_executors and min_ready_executors_percent apply only to a scheduler (--role scheduler)');
    t.is((await fetch(`${baseUrl}/v1/ready`)).status, 200, 'without the gate, readiness as before');
  });
});

test('on a single node the scheduler plugin leaves query.instead untapped (no cost per query)', async (t) => {
  // withRuntime loads the default bundle, the scheduler plugin included.
  await withRuntime(t, { manifest: 'version: v2\nkind: Spicepod\nname: single\n' }, async ({ runtime }) => {
    t.is(runtime.hooks.query.instead.taps.length, 0);
  });
});
