import test from 'ava';
import { waitForOutput } from '../helpers/daemon.js';
import { clusterDirectories, spawnQuarryd, spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';
import { freePort } from '../helpers/free-port.js';

// Real quarryd processes on loopback (plaintext node traffic: mTLS is covered in cluster-processes).

test.serial('an executor started before its scheduler waits for one to answer, then joins and serves its share', async (t) => {
  const paths = clusterDirectories((state) => `version: v2
kind: Spicepod
name: late-scheduler
runtime:
  scheduler:
    state_location: ${state}
    partition_assignment_interval: 1s
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
      partition_by: 'bucket(4, customer_id)'
`);
  const port = await freePort();
  const executor = spawnQuarryd(['--scheduler-address', `grpc://127.0.0.1:${port}`, '--node-advertise-address', 'executor-early', '--allow-insecure-connections']);
  const daemons = [executor];
  try {
    await waitForOutput(executor, /no scheduler answered yet; asking again/, 30_000);
    t.is(executor.child.exitCode, null, 'still waiting, not exited');
    const started = await spawnScheduler([paths.manifest, '--role', 'scheduler', '--node-bind-address', `127.0.0.1:${port}`, '--allow-insecure-connections']);
    daemons.push(started.daemon);
    await waitForOutput(executor, /HTTP listening endpoint=/, 60_000);
    const scheduler = await started.http();
    const count = async (baseUrl: string) => ((await (await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT count(*)::INTEGER AS n FROM orders' })).json()) as Array<{ n: number }>)[0]!.n;
    const total = await waitFor(() => count(scheduler.baseUrl), (n) => n > 0, 'the scheduler reads the rows through the late-joining executor');
    t.true(total > 0);
    t.regex(executor.output(), /cluster executor started/);
  } finally {
    await stopAll(daemons);
    paths.remove();
  }
});

test.serial('SIGTERM while an executor waits for a scheduler stops it at once, cleanly', async (t) => {
  const executor = spawnQuarryd(['--scheduler-address', `grpc://127.0.0.1:${await freePort()}`, '--allow-insecure-connections']);
  try {
    await waitForOutput(executor, /no scheduler answered yet; asking again/, 30_000);
    const signalled = Date.now();
    executor.child.kill('SIGTERM');
    t.is(await executor.exited, 0);
    t.true(Date.now() - signalled < 5_000, 'no waiting out the retry window');
    t.regex(executor.output(), /stopped while waiting for a scheduler/);
  } finally {
    await stopAll([executor]);
  }
});
