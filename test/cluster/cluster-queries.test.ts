import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { ownedPartitionCounts } from '../../plugins/scheduler/cluster-document.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { runCommand, startDaemon, type Daemon } from '../helpers/daemon.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { spawnScheduler, stopAll, waitFor } from './cluster-helpers.js';
import { connectClient, textOf } from '../mcp/mcp-helpers.js';

// Real quarryd processes on loopback: a scheduler routing queries to three executors must
// answer exactly as one node holding all the data. Node traffic is plaintext here
// (--allow-insecure-connections; mTLS is covered in cluster-processes.test.ts).

const INTERVAL = '2s';
const datasets = `
datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
      partition_by: 'bucket(6, customer_id)'
  - from: file:data/orders.parquet
    name: orders_by_status
    acceleration:
      enabled: true
      partition_by: status
  - from: file:data/customers.csv
    name: customers
`;
const clusterManifest = (state: string) => `version: v2\nkind: Spicepod\nname: cluster\nruntime:\n  scheduler:\n    state_location: ${state}\n    partition_assignment_interval: ${INTERVAL}\n${datasets}`;
const singleManifest = `version: v2\nkind: Spicepod\nname: single\n${datasets}`;

const QUERIES = [
  'SELECT count(*) AS n, sum(quantity) AS q FROM orders',
  'SELECT status, count(*) AS n, sum(unit_price * quantity) AS revenue FROM orders GROUP BY status ORDER BY status',
  'SELECT o.order_id, c.name, c.country FROM orders o JOIN customers c ON o.customer_id = c.customer_id WHERE o.quantity > 3 ORDER BY o.order_id LIMIT 20',
  'SELECT * FROM orders WHERE customer_id = 42 ORDER BY order_id',
  'SELECT order_id, ordered_at FROM orders ORDER BY ordered_at DESC, order_id LIMIT 5',
  'SELECT count(*) AS n FROM orders WHERE customer_id IN (1, 2, 3) AND is_gift',
  "SELECT category, avg(discount) AS d FROM orders_by_status WHERE status = 'shipped' GROUP BY category ORDER BY category",
  'SELECT a.status, count(*) AS n FROM orders a JOIN orders_by_status b ON a.order_id = b.order_id GROUP BY a.status ORDER BY a.status',
];

async function sqlText(daemon: Daemon, sql: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${daemon.baseUrl}/v1/sql`, { method: 'POST', body: sql });
  return { status: response.status, body: await response.text() };
}

test.serial('a scheduler and three executors answer like one node; pruning by partition key; kill -9 → clear error, then the same answers again', async (t) => {
  const stateDirectory = mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-state-'));
  const clusterDirectory = writeManifestDirectory({ manifest: clusterManifest(`${pathToFileURL(stateDirectory).href}/`), withQuickstartData: true });
  const singleDirectory = writeManifestDirectory({ manifest: singleManifest, withQuickstartData: true });
  const processes: Daemon[] = [];
  try {
    const single = await startDaemon([singleDirectory]);
    processes.push(single);
    const started = await spawnScheduler([clusterDirectory, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--allow-insecure-connections', '--metrics', '127.0.0.1:0', '-v']);
    const schedulerProcess = started.daemon;
    processes.push(schedulerProcess);
    const nodeEndpoint = started.nodeEndpoint;
    const executors: Daemon[] = [];
    for (const name of ['executor-a', 'executor-b', 'executor-c']) {
      const executor = await startDaemon(['--scheduler-address', `grpc://${nodeEndpoint}`, '--node-advertise-address', name, '--allow-insecure-connections']);
      executors.push(executor);
      processes.push(executor);
    }
    const scheduler = await started.http();
    const state = new ClusterState(new FileObjectStore(stateDirectory));
    await waitFor(() => state.read(), (document) => ownedPartitionCounts(document).size === 3 && Object.values(document.datasets).length === 2 && Object.values(document.datasets).every((entry) => Object.values(entry.partitions).every((partition) => partition.owner !== null)), 'every partition owned, all 3 executors used');

    const expected = await Promise.all(QUERIES.map(async (sql) => (await sqlText(single, sql)).body));
    // Executors reload their shares after assignment: wait until the cluster agrees on the first query.
    await waitFor(() => sqlText(scheduler, QUERIES[0]!), (answer) => answer.body === expected[0], 'the cluster counts every row once', 60_000);
    for (const [index, sql] of QUERIES.entries()) {
      const answer = await sqlText(scheduler, sql);
      t.is(answer.status, 200, sql);
      t.is(answer.body, expected[index]!, sql);
    }

    // A filter on the partition key reaches only the owner of the matching bucket.
    const before = schedulerProcess.output().length;
    await sqlText(scheduler, 'SELECT count(*) FROM orders WHERE customer_id = 42');
    const scanLine = await waitFor(async () => /cluster scan dataset=orders executors=(\S+) partitions=(\d+) of=(\d+)/.exec(schedulerProcess.output().slice(before)), (match) => match !== null, 'the scan was logged');
    t.is(scanLine![2], '1', 'one partition of six scanned');
    t.is(scanLine![1]!.split(',').length, 1, 'one executor asked');
    const unpruned = schedulerProcess.output().length;
    await sqlText(scheduler, 'SELECT count(*) FROM orders');
    const fullScan = await waitFor(async () => /cluster scan dataset=orders executors=(\S+) partitions=(\d+)/.exec(schedulerProcess.output().slice(unpruned)), (match) => match !== null, 'the full scan was logged');
    const owners = new Set(Object.values((await state.read()).datasets['orders']!.partitions).map((partition) => partition.owner));
    t.deepEqual(fullScan![1]!.split(','), [...owners].sort() as string[], 'a scan without a key filter asks every owner of the dataset');
    t.is(fullScan![2], '6');

    // Each executor stores its share in partition-key order (the bucket's column, an expression
    // key itself), so a key filter also skips row groups inside the executor.
    let distinctCustomersSeen = 0;
    for (const executor of executors) {
      const stored = async (sql: string) => (JSON.parse((await sqlText(executor, sql)).body) as Array<Record<string, string | number>>).map((row) => Object.values(row)[0]!);
      const customers = await stored('SELECT customer_id FROM orders');
      distinctCustomersSeen = Math.max(distinctCustomersSeen, new Set(customers).size);
      t.deepEqual(customers, [...customers].sort((a, b) => Number(a) - Number(b)), 'orders stored by customer_id (no ORDER BY in the query)');
      const statuses = await stored('SELECT status FROM orders_by_status');
      t.deepEqual(statuses, [...statuses].sort(), 'orders_by_status stored by status');
    }
    t.true(distinctCustomersSeen > 1, 'an executor holds several customers, in order');

    // Flight SQL on the scheduler routes the same way as HTTP.
    const flightEndpoint = /Flight listening endpoint=(grpc:\/\/[\d.:]+)/.exec(schedulerProcess.output())![1]!;
    const flight = FlightSqlClient.connect({ endpoint: flightEndpoint });
    try {
      const { table } = await flight.query('SELECT count(*) AS n FROM orders WHERE customer_id < 100');
      t.is(Number(table.get(0)!['n']), JSON.parse((await sqlText(single, 'SELECT count(*) AS n FROM orders WHERE customer_id < 100')).body)[0].n);
    } finally {
      flight.close();
    }

    // MCP on the scheduler: its sql tool runs through the same routed pipeline.
    const mcpQuery = 'SELECT status, count(*) AS n FROM orders WHERE customer_id < 200 GROUP BY status ORDER BY status';
    const [clusterMcp, singleMcp] = [await connectClient(scheduler.baseUrl), await connectClient(single.baseUrl)];
    try {
      const [fromCluster, fromSingle] = [
        textOf(await clusterMcp.client.callTool({ name: 'sql', arguments: { query: mcpQuery } })),
        textOf(await singleMcp.client.callTool({ name: 'sql', arguments: { query: mcpQuery } })),
      ];
      t.is(fromCluster, fromSingle, 'MCP sql on the scheduler answers as on one node');
      t.true(JSON.parse(fromCluster).length > 0);
    } finally {
      await clusterMcp.client.close();
      await singleMcp.client.close();
    }

    // quarry status lists the nodes and what they own.
    const status = await runCommand('quarry', ['status', '--endpoint', scheduler.baseUrl]);
    t.is(status.code, 0, status.stderr);
    t.regex(status.stdout, /cluster.*executor-[abc] \(executor, \d+ orders/);

    // The cluster's metrics on the scheduler's Prometheus endpoint.
    const metricsUrl = /Metrics listening endpoint=(http:\/\/[\d.:]+\/metrics)/.exec(schedulerProcess.output())![1]!;
    const exposition = await (await fetch(metricsUrl)).text();
    t.regex(exposition, /^scheduler_active_executors_count(\{[^}]*\})? 3$/m);
    const assignments = [...exposition.matchAll(/^scheduler_executor_assignments\{[^}]*executor="(executor-[abc])"[^}]*\} (\d+)$/gm)];
    const partitionCount = Object.values((await state.read()).datasets).reduce((sum, entry) => sum + Object.keys(entry.partitions).length, 0);
    t.is(assignments.reduce((sum, match) => sum + Number(match[2]), 0), partitionCount, 'assignments per executor add up to every partition');
    t.is(new Set(assignments.map((match) => match[1])).size, 3);
    t.regex(exposition, /^node_status\{[^}]*node_id="executor-a"[^}]*\} 1$/m);
    // Queries routed through the executors are counted on the scheduler as on one node.
    const executions = [...exposition.matchAll(/^query_executions\{([^}]*)\} (\d+)$/gm)].filter(([, labels]) => /protocol="http"/.test(labels!) && /orders/.test(labels!));
    t.true(executions.reduce((sum, match) => sum + Number(match[2]), 0) >= QUERIES.length, exposition.split('\n').filter((line) => line.startsWith('query_executions')).join('\n'));
    t.regex(exposition, /^query_duration_ms_count\{[^}]*protocol="http"[^}]*\} \d+$/m);

    // An executor refuses a scan leg for a partition it does not hold (never an empty answer).
    const document = await state.read();
    const [foreignId, foreignPartition] = Object.entries(document.datasets['orders']!.partitions).find(([, partition]) => partition.owner !== 'executor-a')!;
    const executorA = FlightSqlClient.connect({ endpoint: document.members['executor-a']!.address });
    try {
      const refused = await executorA.query(`SELECT count(*) FROM orders WHERE CAST(hash(customer_id) % 6 AS INTEGER) = ${foreignPartition.values[0]}`, { 'x-quarry-cluster-partitions': JSON.stringify({ dataset: 'orders', partitions: [foreignId] }) }).then(() => undefined, (error: Error) => error);
      t.regex(String(refused?.message), /executor executor-a does not hold 1 partition\(s\) of dataset "orders" yet/);
    } finally {
      executorA.close();
    }

    // kill -9 an executor owning part of orders: its partitions have no live owner until the next round.
    const victimName = [...owners].sort()[0]!;
    const victim = executors[['executor-a', 'executor-b', 'executor-c'].indexOf(victimName)]!;
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    const reassignedAt = waitFor(() => state.read(), (document) => ownedPartitionCounts(document).size === 2 && !ownedPartitionCounts(document).has(victimName), 'partitions reassigned to the two live executors', 30_000).then(() => Date.now());
    await victim.exited;
    const failure = await waitFor(() => sqlText(scheduler, QUERIES[0]!), (answer) => answer.status !== 200 || answer.body !== expected[0], 'a query sees the missing executor', 30_000);
    t.log(`while reassigning: ${failure.status} ${failure.body.slice(0, 200)}`);
    // QUERIES[0] is pushed into the executors (a partial aggregate): the cluster's own error, 503
    // (a query the scheduler's engine runs over fetched rows answers the same: live-source-errors.test.ts).
    t.is(failure.status, 503, 'never a wrong answer: an error while a partition has no live owner');
    const { code, message } = (JSON.parse(failure.body) as { error: { code: string; message: string } }).error;
    t.is(code, 'CLUSTER_PARTITION_UNAVAILABLE');
    t.regex(message, new RegExp(`dataset "orders": executor ${victimName} failed its share of the scan|partition\\(s\\) of dataset "orders" have no live executor`));
    // Its heartbeat expires at most one ttl (the interval) after its last beat, and the next
    // round, at most one interval later, hands its partitions on; 6 s of slack for a busy machine.
    const reassignedAfterMs = (await reassignedAt) - killedAt;
    t.log(`partitions reassigned ${reassignedAfterMs} ms after kill -9 (interval ${INTERVAL})`);
    t.true(reassignedAfterMs <= 2 * 2_000 + 6_000, `reassigned ${reassignedAfterMs} ms after kill -9`);
    await waitFor(() => sqlText(scheduler, QUERIES[0]!), (answer) => answer.body === expected[0], 'the cluster answers fully again', 60_000);
    for (const [index, sql] of QUERIES.entries()) t.is((await sqlText(scheduler, sql)).body, expected[index]!, `after reassignment: ${sql}`);
  } finally {
    await stopAll(processes);
    for (const directory of [stateDirectory, clusterDirectory, singleDirectory]) rmSync(directory, { recursive: true, force: true });
  }
});
