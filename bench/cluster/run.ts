/**
 * cluster: what scales when one machine's cores are shared by every node.
 *
 * 1. Pruning: a query filtering on the partition key (`customer_id = K`) on a scheduler with
 *    three executors asks only the owner of K's bucket; printed: executors asked and rows each
 *    returned, beside the same figures for the query without the key filter, and the rows each
 *    asked executor's table scan read (DuckDB's `operator_rows_scanned`, from `EXPLAIN
 *    (ANALYZE, FORMAT JSON)` of the query on that executor) against the single node's.
 * 2. Merge overhead: the median time of the same queries on the scheduler (which pushes them
 *    into its executors and merges their answers, or fetches their rows) against one node
 *    holding all the data, as a ratio (target <= 1.5x). Both run in the same run on the same
 *    machine; the scheduler's log splits each pushed-down run into the executors' legs and
 *    its own merge.
 * 3. The same with one executor left (it owns every partition): the routing overhead alone,
 *    without three executors sharing the machine's cores.
 *
 * quarryd runs as shipped (see quarrydEntry). Sizes: CLUSTER_ROWS (default 400k) rows, RUNS (default 21; the
 * nodes take turns run by run, in reversed order every other run), each query first run
 * CLUSTER_WARMUP (default 400) times on every node; timed runs use node:http on a kept-alive
 * connection (bench/common/sql-client.ts). The warm-up is what a running node has behind it,
 * as in the tpch bench: a freshly started scheduler's routed key lookup fell from 2.9 ms to
 * 1.1 ms over its first ~2,500 queries (V8 compiling its path), and with 100 runs of each of
 * the six queries the timed runs still caught part of that fall.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { median, quarrydEntry, repositoryRoot } from '../common/server.js';
import { SqlClient } from '../common/sql-client.js';

const ROWS = Number(process.env['CLUSTER_ROWS'] ?? 400_000);
const RUNS = Number(process.env['RUNS'] ?? 21);
/** Timed runs go through node:http on a kept-alive connection after this many runs of the query on each node (see sql-client.ts and the tpch bench). */
const WARMUP = Number(process.env['CLUSTER_WARMUP'] ?? 400);

interface Node {
  readonly child: ChildProcess;
  output(): string;
  readonly baseUrl: string;
  client?: SqlClient;
}

/**
 * Starts quarryd with its log going to a file, not to a pipe into this process: the bench is
 * also the client, and reading the scheduler's `-v` lines (three per routed query) on the
 * client's event loop would add their handling to every timed cluster request.
 */
async function start(args: string[], waitForHttp: boolean): Promise<Node> {
  const logFile = path.join(workspace, `node-${nodes.length}-${Date.now()}.log`);
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...quarrydEntry(), ...args, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0'], { cwd: repositoryRoot, stdio: ['ignore', 'ignore', log] });
  closeSync(log);
  const output = () => readFileSync(logFile, 'utf8');
  let baseUrl = '';
  const node: Node = {
    child,
    output,
    // A scheduler's HTTP listener starts after its node listener: looked up until it is logged.
    get baseUrl() {
      return (baseUrl ||= /HTTP listening endpoint=(http:\/\/[\d.:]+)/.exec(output())?.[1] ?? '');
    },
  };
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  for (;;) {
    const text = output();
    if (waitForHttp ? node.baseUrl !== '' : /node listening/.test(text)) return node;
    if (exited !== undefined) throw new Error(`quarryd exited with ${exited}:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function query(node: Node, sql: string): Promise<string> {
  const response = await fetch(`${node.baseUrl}/v1/sql`, { method: 'POST', body: sql });
  const body = await response.text();
  if (response.status !== 200) throw new Error(`${sql}: ${response.status} ${body}`);
  return body;
}

/** Rows the table scans of `sql` read on `node` (the sum of DuckDB's operator_rows_scanned over its profiled plan). */
async function rowsScanned(node: Node, sql: string): Promise<number> {
  const [row] = JSON.parse(await query(node, `EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`)) as Array<Record<string, string>>;
  const sum = (operator: { operator_rows_scanned?: number; children?: unknown[] }): number =>
    (operator.operator_rows_scanned ?? 0) + (operator.children ?? []).reduce<number>((total, child) => total + sum(child as typeof operator), 0);
  return sum(JSON.parse(Object.values(row!).at(-1)!) as { children?: unknown[] });
}

async function rowsHeld(node: Node): Promise<number> {
  return Number((JSON.parse(await query(node, 'SELECT count(*) AS n FROM events')) as Array<{ n: number }>)[0]!.n);
}

/**
 * Median time of `sql` on each node, the nodes taking turns run by run (drift on this shared
 * machine hits them alike), after WARMUP runs on each: a process's first runs of a query
 * (its code not yet optimised, connections not yet open) are not what a running cluster pays.
 */
async function timed(nodes: readonly Node[], sql: string): Promise<number[]> {
  const times = nodes.map(() => [] as number[]);
  for (const node of nodes) {
    node.client ??= new SqlClient(node.baseUrl);
    for (let run = 0; run < WARMUP; run++) await node.client.time(sql);
  }
  for (let run = 0; run < RUNS; run++) {
    for (const [index, node] of (run % 2 === 0 ? nodes : [...nodes].reverse()).entries()) {
      const turn = run % 2 === 0 ? index : nodes.length - 1 - index;
      times[turn]!.push(await node.client!.time(sql));
    }
  }
  return times.map(median);
}

const workspace = mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-cluster-'));
const nodes: Node[] = [];
try {
  mkdirSync(path.join(workspace, 'data'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  // amount and kind are hashed from the row number, not derived from customer_id's arithmetic:
  // an executor stores its share ordered by customer_id, and correlated columns would let its
  // zone maps skip rows for filters on them too, flattering the cluster.
  await connection.run(`COPY (SELECT i AS event_id, (i * 7919) % 10000 AS customer_id, CAST((hash(i) % 1000) / 10 AS DECIMAL(10, 1)) AS amount, ['a','b','c','d'][1 + CAST(hash(i + 1) % 4 AS INTEGER)] AS kind FROM range(${ROWS}) t(i)) TO '${path.join(workspace, 'data/events.parquet')}' (FORMAT parquet)`);
  connection.closeSync();
  instance.closeSync();
  const datasets = `datasets:\n  - from: file:data/events.parquet\n    name: events\n    acceleration:\n      enabled: true\n      partition_by: 'bucket(12, customer_id)'\n`;
  const noCache = 'runtime:\n  caching:\n    sql_results:\n      enabled: false\n';
  mkdirSync(path.join(workspace, 'single'));
  writeFileSync(path.join(workspace, 'single/quarry.yaml'), `version: v2\nkind: Spicepod\nname: single\n${noCache}${datasets.replace('file:data', `file:${workspace}/data`)}`);
  mkdirSync(path.join(workspace, 'state'));
  writeFileSync(path.join(workspace, 'quarry.yaml'), `version: v2\nkind: Spicepod\nname: cluster\n${noCache}  scheduler:\n    state_location: ${pathToFileURL(path.join(workspace, 'state')).href}/\n    partition_assignment_interval: 2s\n${datasets}`);

  const single = await start([path.join(workspace, 'single')], true);
  nodes.push(single);
  const scheduler = await start([workspace, '--role', 'scheduler', '--node-bind-address', '127.0.0.1:0', '--allow-insecure-connections', '-v'], false);
  nodes.push(scheduler);
  const nodeEndpoint = /node listening endpoint=([\d.:]+)/.exec(scheduler.output())![1]!;
  for (const name of ['executor-a', 'executor-b', 'executor-c']) nodes.push(await start(['--scheduler-address', `grpc://${nodeEndpoint}`, '--node-advertise-address', name, '--allow-insecure-connections'], true));
  await until(async () => scheduler.baseUrl !== '', 'the scheduler listens');
  await until(async () => (await fetch(`${single.baseUrl}/v1/ready`)).status === 200, 'the single node is ready');
  const total = await query(single, 'SELECT count(*) AS n FROM events');
  await until(async () => {
    const nodes = (await (await fetch(`${scheduler.baseUrl}/v1/cluster`)).json() as { nodes: Array<{ role: string; partitions: Record<string, number> }> }).nodes;
    return nodes.filter((node) => node.role === 'executor' && node.partitions['events'] === 4).length === 3;
  }, 'the 12 partitions balanced over the 3 executors');
  await until(async () => (await query(scheduler, 'SELECT count(*) AS n FROM events')) === total, 'the cluster holds every row');

  // 1. Pruning.
  const legs = async (sql: string) => {
    const before = scheduler.output().length;
    await query(scheduler, sql);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const log = scheduler.output().slice(before);
    const pushdown = /cluster scan dataset=events [^\n]*pushdown=(\S+)/.exec(log)?.[1] ?? 'none';
    return { pushdown, legs: [...log.matchAll(/cluster leg dataset=events executor=(\S+) rows=(\d+)/g)].map((match) => `${match[1]}: ${match[2]} rows`) };
  };
  const keyed = await legs('SELECT event_id, amount FROM events WHERE customer_id = 42');
  const unkeyed = await legs('SELECT event_id, amount FROM events WHERE amount > 99');
  console.log(`pruning, WHERE customer_id = 42 (the partition key): ${keyed.legs.length} of 3 executors asked (pushdown ${keyed.pushdown}) — ${keyed.legs.join(', ')}`);
  console.log(`baseline, WHERE amount > 99 (not the key):          ${unkeyed.legs.length} of 3 executors asked (pushdown ${unkeyed.pushdown}) — ${unkeyed.legs.join(', ')}`);
  // Rows read by the table scans: on each asked executor (only its share, stored in customer_id order) and on the single node.
  const executorsByName = new Map(['executor-a', 'executor-b', 'executor-c'].map((name, index) => [name, nodes[2 + index]!]));
  for (const [label, sql, asked] of [['key filter', 'SELECT event_id, amount FROM events WHERE customer_id = 42', keyed], ['no key filter', 'SELECT event_id, amount FROM events WHERE amount > 99', unkeyed]] as const) {
    const perExecutor = await Promise.all(asked.legs.map(async (leg) => {
      const name = leg.split(':')[0]!;
      return `${name} ${(await rowsScanned(executorsByName.get(name)!, sql)).toLocaleString('en')} of ${(await rowsHeld(executorsByName.get(name)!)).toLocaleString('en')}`;
    }));
    console.log(`rows scanned, ${label.padEnd(13)}: ${perExecutor.join(', ')} | single node ${(await rowsScanned(single, sql)).toLocaleString('en')} of ${Number(JSON.parse(total)[0].n).toLocaleString('en')}`);
  }

  // 2. Merge overhead against one node with the same data.
  const queries: Array<[string, string]> = [
    ['key lookup', 'SELECT count(*), sum(amount) FROM events WHERE customer_id = 42'],
    ['selective filter', 'SELECT kind, count(*), sum(amount) FROM events WHERE amount > 99 GROUP BY kind ORDER BY kind'],
    ['top-k', 'SELECT event_id, amount FROM events WHERE kind = \'a\' ORDER BY amount DESC, event_id LIMIT 10'],
    ['full aggregate', 'SELECT kind, count(*), sum(amount) FROM events GROUP BY kind ORDER BY kind'],
    // count(DISTINCT): the legs send their distinct values (grouped by them), the scheduler counts.
    ['count distinct', 'SELECT count(DISTINCT customer_id) FROM events WHERE amount > 99'],
    // Not pushed (a median cannot be combined from parts): the executors' rows are fetched.
    ['not pushed', 'SELECT median(amount) FROM events WHERE amount > 99'],
  ];
  const measure = async (executors: number, direct?: Node) => {
    console.log(`\n${ROWS} rows, median of ${RUNS} runs; scheduler + ${executors} executor${executors > 1 ? 's' : ''} vs one node, same machine`);
    for (const [label, sql] of queries) {
      const [clusterAnswer, singleAnswer] = [await query(scheduler, sql), await query(single, sql)];
      if (clusterAnswer !== singleAnswer) throw new Error(`${label}: the cluster answered differently:\n${clusterAnswer.slice(0, 300)}\n${singleAnswer.slice(0, 300)}`);
      const before = scheduler.output().length;
      const [clusterMs, singleMs, directMs] = (await timed(direct ? [scheduler, single, direct] : [scheduler, single], sql)) as [number, number, number | undefined];
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The scheduler's own account of each run: the executors' legs, then its merge.
      const done = [...scheduler.output().slice(before).matchAll(/cluster pushdown done dataset=events pushdown=(\S+) executors=\d+ rows=\d+ legs_ms=([\d.]+) merge_ms=([\d.]+)/g)];
      const split = done.length > 0 ? `  [${done[0]![1]}: legs ${median(done.map((match) => Number(match[2]))).toFixed(1)} ms, merge ${median(done.map((match) => Number(match[3]))).toFixed(1)} ms]` : '  [not pushed: rows fetched, engine on the scheduler]';
      // The same query sent to the executor itself (it holds every row, stored in customer_id order): the
      // scheduler's hop and merge are the difference, the storage order the difference to the single node.
      const hop = directMs === undefined ? '' : `  [executor direct ${directMs.toFixed(1)} ms: hop + merge ${(clusterMs - directMs).toFixed(1)} ms]`;
      console.log(`${label.padEnd(17)} cluster ${clusterMs.toFixed(1).padStart(8)} ms   single ${singleMs.toFixed(1).padStart(8)} ms   ratio ${(clusterMs / singleMs).toFixed(2)}x${split}${hop}`);
    }
  };
  await measure(3);

  // 3. The same with one executor holding every partition: no CPU shared between executors, so
  // the ratio is the routing overhead itself (one more hop; every query runs whole on it).
  for (const node of nodes.slice(3)) {
    node.child.kill('SIGTERM');
    await new Promise((resolve) => (node.child.exitCode !== null || node.child.signalCode !== null ? resolve(undefined) : node.child.once('exit', resolve)));
  }
  await until(async () => {
    const nodes = (await (await fetch(`${scheduler.baseUrl}/v1/cluster`)).json() as { nodes: Array<{ node_id: string; role: string; partitions: Record<string, number> }> }).nodes;
    return nodes.some((node) => node.node_id === 'executor-a' && node.partitions['events'] === 12);
  }, 'executor-a owns the 12 partitions');
  await until(async () => (await query(scheduler, 'SELECT count(*) AS n FROM events')) === total, 'executor-a holds every row');
  await measure(1, nodes[2]);
} finally {
  for (const node of nodes) {
    node.client?.close();
    node.child.kill('SIGTERM');
    await new Promise((resolve) => (node.child.exitCode !== null || node.child.signalCode !== null ? resolve(undefined) : node.child.once('exit', resolve)));
  }
  rmSync(workspace, { recursive: true, force: true });
}
