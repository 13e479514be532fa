import test from 'ava';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { DataVersions } from '../../plugins/scheduler/scheduler-node.js';
import { startDaemon, waitForOutput } from '../helpers/daemon.js';
import { clusterDirectories, spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';

test('a scheduler is told of a dataset change when an executor\'s data version moves, not on its first report', (t) => {
  const changed: string[] = [];
  const versions = new DataVersions((dataset) => changed.push(dataset));
  versions.seen('executor-a', { orders: 1, events: 1 });
  t.deepEqual(changed, [], 'a first report only records');
  versions.seen('executor-a', { orders: 1, events: 1 });
  t.deepEqual(changed, []);
  versions.seen('executor-b', { orders: 4 });
  versions.seen('executor-a', { orders: 2, events: 1 });
  t.deepEqual(changed, ['orders']);
  versions.seen('executor-a', undefined);
  versions.seen('executor-a', { orders: 2, events: 3 });
  t.deepEqual(changed, ['orders', 'events'], 'a heartbeat without versions changes nothing');
});

// Real quarryd processes on loopback (plaintext node traffic: mTLS is covered in cluster-processes).
test.serial('executors refresh their share on refresh_check_interval, and the scheduler drops cached answers from it', async (t) => {
  const paths = clusterDirectories((state) => `version: v2
kind: Spicepod
name: refreshing
runtime:
  caching:
    sql_results:
      item_ttl: 1h
  scheduler:
    state_location: ${state}
    partition_assignment_interval: 1s
datasets:
  - from: file:data/events.csv
    name: events
    acceleration:
      enabled: true
      refresh_check_interval: 1s
      partition_by: 'bucket(2, customer_id)'
`, { files: { 'data/events.csv': 'id,customer_id\n1,10\n2,11\n3,12\n' } });
  const started = await spawnScheduler([paths.manifest, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--allow-insecure-connections']);
  const daemons = [started.daemon];
  try {
    daemons.push(await startDaemon(['--scheduler-address', `grpc://${started.nodeEndpoint}`, '--node-advertise-address', 'executor-a', '--allow-insecure-connections']));
    const scheduler = await started.http();
    const ask = async () => {
      const response = await fetch(`${scheduler.baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT count(*)::INTEGER AS n FROM events' });
      return { n: ((await response.json()) as Array<{ n: number }>)[0]!.n, cache: response.headers.get('x-cache') };
    };
    await waitFor(ask, (answer) => answer.n === 3, 'the scheduler reads the 3 rows');
    // Each refresh of the executor's share (every second here) drops the scheduler's cached
    // answers, so a refresh landing between two asks makes the second a MISS: ask until a HIT.
    const cached = await waitFor(ask, (answer) => answer.cache === 'HIT', 'the answer is cached on the scheduler (for an hour)', 15_000);
    t.is(cached.n, 3);
    appendFileSync(path.join(paths.manifest, 'data/events.csv'), '4,13\n5,14\n');
    await waitForOutput(daemons[1]!, /owned partitions refreshed dataset=events/, 15_000);
    const fresh = await waitFor(ask, (answer) => answer.n === 5, 'the refreshed rows reach the scheduler past its cache', 15_000);
    t.is(fresh.n, 5);
  } finally {
    await stopAll(daemons);
    paths.remove();
  }
});
