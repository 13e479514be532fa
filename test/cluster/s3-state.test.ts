import test from 'ava';
import { openObjectStore } from '../../core/object-store/open-object-store.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';
import { ownedPartitionCounts } from '../../plugins/scheduler/cluster-document.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { motoAvailable, startMoto } from '../helpers/moto.js';
import { checkConditionalWrites, incrementConcurrently } from '../helpers/object-store-contract.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';

// A cluster's shared state on a real S3 implementation that enforces conditional writes
// (moto's server; s3rver ignores the conditions, and test/helpers/conditional-s3.ts is a
// stand-in written for these tests). moto is a Python package, not an npm or Debian one:
// where Python's `moto` is missing these tests are skipped, and say so in their titles.

const available = motoAvailable();
const withMoto = available ? test.serial : test.serial.skip;
const suffix = available ? '' : ' (skipped: the Python package moto is not installed)';
const params = (endpoint: string) => ({ objstore_endpoint: endpoint, objstore_region: 'us-east-1', objstore_key: 'test', objstore_secret: 'test' });

withMoto(`s3:// on moto: conditional create and replace, no lost update among racing writers, cluster documents changed by compare-and-swap${suffix}`, async (t) => {
  const moto = await startMoto(['state']);
  try {
    const store = openObjectStore('s3://state/quarry/', params(moto.endpoint), '/');
    await checkConditionalWrites(t, store, 'contract/a.json');
    const { value, lostRaces } = await incrementConcurrently(store, 'counter', 6, 10);
    t.is(value, 60);
    t.true(lostRaces > 0, 'the server refused stale writes');
    // Twenty racers at once (a real cluster has a few, retried next round): enough attempts for
    // each to win its turn on a loaded machine; what is checked is that no change is lost.
    const state = new ClusterState(store, { maxAttempts: 60 });
    await Promise.all(Array.from({ length: 4 }, (_, racer) => Promise.all(Array.from({ length: 5 }, (_, index) => state.join(`node-${racer}-${index}`, 'executor', `host-${racer}-${index}:1`)))));
    const document = await state.read();
    t.is(Object.keys(document.members).length, 20, 'every concurrent join kept');
    t.is(document.revision, 20, 'one revision per change');
    await store.close?.();
  } finally {
    await moto.close();
  }
});

withMoto(`a scheduler with an s3:// state_location on moto and two executors answer as one node${suffix}`, async (t) => {
  const moto = await startMoto(['state']);
  const datasets = `datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
      partition_by: 'bucket(4, customer_id)'
`;
  const cluster = writeManifestDirectory({
    manifest: `version: v2\nkind: Spicepod\nname: s3-state\nruntime:\n  scheduler:\n    state_location: s3://state/cluster/\n    params:\n${Object.entries(params(moto.endpoint)).map(([key, value]) => `      ${key}: ${value}\n`).join('')}    partition_assignment_interval: 2s\n${datasets}`,
    withQuickstartData: true,
  });
  const single = writeManifestDirectory({ manifest: `version: v2\nkind: Spicepod\nname: single\n${datasets}`, withQuickstartData: true });
  const processes: Daemon[] = [];
  try {
    const one = await startDaemon([single]);
    processes.push(one);
    const started = await spawnScheduler([cluster, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--allow-insecure-connections']);
    processes.push(started.daemon);
    for (const name of ['executor-a', 'executor-b']) processes.push(await startDaemon(['--scheduler-address', `grpc://${started.nodeEndpoint}`, '--node-advertise-address', name, '--allow-insecure-connections']));
    const scheduler = await started.http();
    const state = new ClusterState(openObjectStore('s3://state/cluster/', params(moto.endpoint), '/'));
    await waitFor(() => state.read(), (document) => ownedPartitionCounts(document).size === 2 && Object.values(document.datasets['orders']?.partitions ?? {}).length === 4, 'four partitions owned by the two executors, in the S3 document');
    const answer = async (daemon: Daemon, sql: string) => (await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: sql })).text();
    for (const sql of ['SELECT count(*) AS n, sum(quantity) AS q FROM orders', 'SELECT status, count(*) AS n FROM orders WHERE customer_id < 300 GROUP BY status ORDER BY status']) {
      const expected = await answer(one, sql);
      await waitFor(() => answer(scheduler, sql), (body) => body === expected, `the cluster answers ${sql} as one node`, 60_000);
      t.pass(sql);
    }
  } finally {
    await stopAll(processes);
    await moto.close();
  }
});
