import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { ownedPartitionCounts } from '../../plugins/scheduler/cluster-document.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';

// Two real schedulers on one state location, both running assignment rounds every second, with
// two executors beating to both: the rounds race on cluster.json; every partition ends with one
// owner, the shares stay balanced, and either scheduler answers queries like the other.
test.serial('two schedulers assigning at once: one owner per partition, both serve the same answers', async (t) => {
  const stateDirectory = mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-state-'));
  const manifest = `version: v2\nkind: Spicepod\nname: cluster\nruntime:\n  scheduler:\n    state_location: ${pathToFileURL(stateDirectory).href}/\n    partition_assignment_interval: 1s\n    max_partition_assignments_per_interval: 3\ndatasets:\n  - from: file:data/orders.parquet\n    name: orders\n    acceleration:\n      enabled: true\n      partition_by: 'bucket(16, customer_id)'\n`;
  const manifestDirectory = writeManifestDirectory({ manifest, withQuickstartData: true });
  const daemons: Daemon[] = [];
  try {
    const first = await spawnScheduler([manifestDirectory, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--node-advertise-address', 'scheduler-1', '--allow-insecure-connections']);
    daemons.push(first.daemon);
    const second = await spawnScheduler([manifestDirectory, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--node-advertise-address', 'scheduler-2', '--allow-insecure-connections']);
    daemons.push(second.daemon);
    for (const name of ['executor-a', 'executor-b']) {
      daemons.push(await startDaemon(['--scheduler-address', `grpc://${first.nodeEndpoint}`, '--scheduler-address', `grpc://${second.nodeEndpoint}`, '--node-advertise-address', name, '--allow-insecure-connections']));
    }
    const [one, two] = [await first.http(), await second.http()];
    const state = new ClusterState(new FileObjectStore(stateDirectory));
    const document = await waitFor(() => state.read(), (current) => {
      const counts = ownedPartitionCounts(current);
      return counts.get('executor-a') === 8 && counts.get('executor-b') === 8;
    }, '16 partitions split 8 / 8 by two racing schedulers');
    t.is(Object.keys(document.datasets['orders']!.partitions).length, 16);
    t.deepEqual(Object.keys(document.members).sort(), ['executor-a', 'executor-b', 'scheduler-1', 'scheduler-2']);
    const sql = 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status';
    const answer = async (daemon: Daemon) => (await (await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: sql })).text());
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const total = Number((await connection.runAndReadAll(`SELECT count(*) AS n FROM '${path.join(manifestDirectory, 'data/orders.parquet')}'`)).getRowObjectsJS()[0]!['n']);
    connection.closeSync();
    instance.closeSync();
    const expected = await waitFor(() => answer(one), (body) => body.startsWith('[') && (JSON.parse(body) as Array<{ n: number }>).reduce((sum, row) => sum + row.n, 0) === total, 'scheduler-1 counts every row');
    t.is(await answer(two), expected, 'scheduler-2 answers the same');
    // Several more rounds of both: nothing moves once balanced.
    const revision = (await state.read()).revision;
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const later = await state.read();
    t.deepEqual(Object.fromEntries(ownedPartitionCounts(later)), { 'executor-a': 8, 'executor-b': 8 });
    const owners = (current: typeof later) => Object.fromEntries(Object.entries(current.datasets['orders']!.partitions).map(([id, partition]) => [id, partition.owner]));
    t.deepEqual(owners(later), owners(document), 'no partition changed owner once balanced');
    t.log(`revision ${revision} → ${later.revision} over 3 s of racing rounds`);
  } finally {
    await stopAll(daemons);
    rmSync(stateDirectory, { recursive: true, force: true });
    rmSync(manifestDirectory, { recursive: true, force: true });
  }
});
