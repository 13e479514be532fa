import test, { type ExecutionContext } from 'ava';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { clusterDirectories, spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';

// Real quarryd processes on loopback. A routing scheduler takes its partitioned datasets'
// columns from an executor; before one joins it listens anyway: /health answers, the dataset
// is not ready and says why, and a SIGTERM stops it at once (exit 0), however long it waited.

const manifest = (state: string) => `
version: v2
kind: Spicepod
name: cluster
runtime:
  scheduler:
    state_location: ${state}
    partition_assignment_interval: 2s
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
      partition_by: 'bucket(4, customer_id)'
  - from: file:data/customers.csv
    name: customers
`;

const schedulerArguments = (directory: string) => [directory, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--allow-insecure-connections'];

async function answer(daemon: Daemon, sql: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: sql, headers: { accept: 'application/json' } });
  return { status: response.status, body: await response.text() };
}

/** The exit code, or 'still running' if the process has not exited within `ms` (the bug kept it for the 60 s schema timeout). */
function exitWithin(daemon: Daemon, ms: number): Promise<number | null | 'still running'> {
  return Promise.race([daemon.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), ms).unref())]);
}

/** A scheduler started alone (no executor yet), its /health checked; every process started in `body` is stopped after it. */
async function withLoneScheduler(t: ExecutionContext, body: (context: { started: Awaited<ReturnType<typeof spawnScheduler>>; scheduler: Daemon; processes: Daemon[] }) => Promise<void>): Promise<void> {
  const paths = clusterDirectories(manifest);
  const processes: Daemon[] = [];
  try {
    const started = await spawnScheduler(schedulerArguments(paths.manifest));
    processes.push(started.daemon);
    const scheduler = await started.http();
    t.is((await fetch(`${scheduler.baseUrl}/health`)).status, 200);
    await body({ started, scheduler, processes });
  } finally {
    await stopAll(processes);
    paths.remove();
  }
}

test.serial('a scheduler with no executor listens, says why its partitioned dataset is not ready, and answers once an executor joins', async (t) => {
  await withLoneScheduler(t, async ({ started, scheduler, processes }) => {
    t.is((await fetch(`${scheduler.baseUrl}/v1/ready`)).status, 503);
    const listed = (await (await fetch(`${scheduler.baseUrl}/v1/datasets`)).json()) as Array<{ name: string; status: string; waiting_for: string | null }>;
    t.like(listed.find((dataset) => dataset.name === 'orders'), { status: 'Initializing' });
    t.regex(listed.find((dataset) => dataset.name === 'orders')?.waiting_for ?? '', /^its source \(cluster:orders\) to give its columns: no live executor has joined the cluster yet/);
    t.like(listed.find((dataset) => dataset.name === 'customers'), { status: 'Ready', waiting_for: null });

    const early = await answer(scheduler, 'SELECT count(*) AS n FROM orders');
    t.is(early.status, 503);
    const error = (JSON.parse(early.body) as { error: { code: string; message: string } }).error;
    t.is(error.code, 'DATASET_NOT_READY');
    t.regex(error.message, /^dataset "orders" is not ready: it waits for its source \(cluster:orders\) to give its columns: no live executor has joined the cluster yet \(asked \d+s ago; an attempt waits up to 1m\)/);
    // The scheduler's own datasets are served meanwhile.
    t.is((await answer(scheduler, 'SELECT count(*) AS n FROM customers')).status, 200);

    processes.push(await startDaemon(['--scheduler-address', `grpc://${started.nodeEndpoint}`, '--node-advertise-address', 'executor-a', '--allow-insecure-connections']));
    // Registered when the executor gives the columns, then answered once its partitions are assigned and loaded.
    const counted = await waitFor(() => answer(scheduler, 'SELECT count(*) AS n FROM orders'), (result) => result.status === 200, 'the scheduler answers over the executor');
    t.true((JSON.parse(counted.body) as Array<{ n: number }>)[0]!.n > 0);
    await waitFor(() => fetch(`${scheduler.baseUrl}/v1/ready`).then((response) => response.status), (status) => status === 200, 'the scheduler is ready');

    started.daemon.child.kill('SIGTERM');
    t.is(await exitWithin(started.daemon, 20_000), 0);
  });
});

test.serial('SIGTERM to a scheduler still waiting for an executor: it exits 0 at once, without an internal error', async (t) => {
  await withLoneScheduler(t, async ({ started }) => {
    started.daemon.child.kill('SIGTERM');
    t.is(await exitWithin(started.daemon, 20_000), 0);
    t.notRegex(started.daemon.output(), /INTERNAL|illegal runtime phase/);
    t.regex(started.daemon.output(), /runtime stopped/);
  });
});
