/**
 * query-overhead: what Quarry adds to every uncached query, and where it goes.
 *
 * 1. Sequential, one kept-alive connection, `Cache-Control: no-cache`: median and p99 of
 *    `SELECT 1`, a point query and a small aggregate over HTTP, against (a) DuckDB in-process
 *    (the engine's own time, rows read as JSON objects), (b) a peer server users would write
 *    instead (fastify + @duckdb/node-api, peer-server.ts), (c) bare fastify answering fixed
 *    bytes (the HTTP floor). Server CPU per query beside the engine's own.
 * 2. `wrk -c8` and `-c50`: requests/s and p99 of Quarry (every default plugin on) and the peer.
 * 3. Where the time goes, by stage: quarryd with `-vv` logs the time each query spent in each
 *    stage (core/pipeline/query-stages.ts), one client and eight at once.
 * 4. Where the time goes, by code: quarryd under `node --cpu-prof` answering the point query,
 *    its JS thread's time per query by part of the code.
 * "point, new text" is the point query with another order id in every request (nearly all
 * absent: an empty answer), as applications send literals: no server has seen the text
 * before, so nothing kept for a text (statements, classifications, plans) helps.
 * Targets (issue #24): SELECT 1 <= 1 ms median; >= 0.8x the peer's requests/s, p99 <= 1.5x.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { median, repositoryRoot, startServer, type BenchServer } from '../common/server.js';
import { startChild, stopChild } from '../common/child-server.js';
import { SqlClient } from '../common/sql-client.js';
import { requireWrk, runWrk } from '../cache-hit/wrk.js';
import { profileBreakdown } from './cpu-profile.js';
import { StageLog, threadCpuMs } from './stages.js';
import { QUERY_STAGES } from '../../core/pipeline/query-stages.js';

const WARMUP = 200;
/**
 * Requests of each query each server answers before anything is measured. V8 compiles a
 * server's hot code in tiers as it runs: Quarry's median SELECT 1 fell from 2.9 ms over its
 * first 500 requests to ~0.6-0.8 ms after ~5,000 (the peer, with less code, from 1.0 to
 * ~0.8 ms), so 200 warm-up requests measured the compiler as much as the server.
 */
const SERVER_WARMUP = Number(process.env['QUERY_OVERHEAD_SERVER_WARMUP'] ?? 1500);
const SEQUENTIAL = Number(process.env['QUERY_OVERHEAD_REQUESTS'] ?? 1500);
const WRK_SECONDS = Number(process.env['QUERY_OVERHEAD_WRK_SECONDS'] ?? 5);
const parquet = path.join(repositoryRoot, 'examples/quickstart/data/orders.parquet');

/** Name, SQL, and whether every request appends a number no request sent before (a new text each time). */
const QUERIES: Array<[string, string, boolean?]> = [
  ['SELECT 1', 'SELECT 1'],
  ['point', 'SELECT * FROM orders WHERE order_id = 1234'],
  ['aggregate', 'SELECT status, count(*) AS orders, sum(quantity * unit_price) AS revenue FROM orders GROUP BY status'],
  ['point, new text', 'SELECT * FROM orders WHERE order_id = ', true],
];

/** The numbers new texts end with: never the same twice in a run, whichever server or side. */
let nextTextNumber = 1_000_000_000;

/** `sql` itself, or with a number appended that no text before had. */
function textOf(sql: string, newText: boolean | undefined): string {
  return newText ? `${sql}${nextTextNumber++}` : sql;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

/** CPU time (user + system, all threads) a process has used, in ms (Linux /proc). */
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** `work`'s server CPU per request on the JS thread and on the others, in ms. */
async function cpuPerRequest<T>(pid: number, requests: number, work: () => Promise<T>): Promise<{ result: T; main: number; others: number }> {
  const before = threadCpuMs(pid);
  const result = await work();
  const after = threadCpuMs(pid);
  return { result, main: (after.main - before.main) / requests, others: (after.others - before.others) / requests };
}

/** `clients` kept-alive connections sending `sql` at once, about `count` requests in all; how many were sent. */
async function concurrent(baseUrl: string, sql: string, count: number, clients: number, newText?: boolean): Promise<number> {
  const each = Math.ceil(count / clients);
  await Promise.all(Array.from({ length: clients }, () => sequential(baseUrl, sql, each, newText)));
  return each * clients;
}

/** POSTs on one kept-alive socket, `count` times (each a new text when `newText`); each request's ms. */
async function sequential(baseUrl: string, sql: string, count: number, newText?: boolean): Promise<number[]> {
  const client = new SqlClient(baseUrl);
  try {
    const times: number[] = [];
    for (let index = 0; index < count; index++) times.push(await client.time(textOf(sql, newText)));
    return times;
  } finally {
    client.close();
  }
}

async function engineInProcess(): Promise<{ run(sql: string): Promise<number>; cpuPerQuery(text: () => string, count: number): Promise<number>; close(): void }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE orders AS SELECT * FROM read_parquet('${parquet}')`);
  const run = async (sql: string) => {
    const started = performance.now();
    (await connection.runAndReadAll(sql)).getRowObjectsJson();
    return performance.now() - started;
  };
  return {
    run,
    cpuPerQuery: async (text, count) => {
      const before = process.cpuUsage();
      for (let index = 0; index < count; index++) await run(text());
      const used = process.cpuUsage(before);
      return (used.user + used.system) / 1000 / count;
    },
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-query-overhead-'));
copyFileSync(parquet, path.join(directory, 'orders.parquet'));
// QUERY_OVERHEAD_RUNTIME: YAML for the manifest's runtime section, to see what a plugin costs
// (e.g. 'caching: {sql_results: {enabled: false}}' or 'task_history: {enabled: false}').
const runtimeSection = process.env['QUERY_OVERHEAD_RUNTIME'];
writeFileSync(
  path.join(directory, 'quarry.yaml'),
  `version: v2\nkind: Spicepod\nname: query-overhead\ndatasets:\n  - from: file:orders.parquet\n    name: orders\n    acceleration:\n      enabled: true\n${runtimeSection ? `runtime: ${runtimeSection}\n` : ''}`,
);

const quarry: BenchServer = await startServer(directory);
const peer = await startChild('bench/query-overhead/peer-server.ts', parquet);
const floor = await startChild('bench/cache-hit/hello-server.ts', '[{"1":1}]');
const engine = await engineInProcess();
try {
  for (const server of [quarry.baseUrl, peer.baseUrl]) for (const [, sql, newText] of QUERIES) await sequential(server, sql, SERVER_WARMUP, newText);
  console.log(`query-overhead: ${os.cpus().length} cores; sequential: ${SEQUENTIAL} requests on one kept-alive connection after ${SERVER_WARMUP} of each query per server and ${WARMUP} of the query, Cache-Control: no-cache${runtimeSection ? `; runtime: ${runtimeSection}` : ''}`);
  console.log('query            Quarry med/p99     peer med/p99       fastify floor   engine in-process   Quarry-engine   Quarry/peer   server CPU/query: Quarry (JS thread + others), peer (JS + others), engine');
  for (const [name, sql, newText] of QUERIES) {
    await sequential(quarry.baseUrl, sql, WARMUP, newText);
    await sequential(peer.baseUrl, sql, WARMUP, newText);
    for (let index = 0; index < WARMUP; index++) await engine.run(textOf(sql, newText));
    const ours = await cpuPerRequest(quarry.process.pid!, SEQUENTIAL, () => sequential(quarry.baseUrl, sql, SEQUENTIAL, newText));
    const quarryTimes = ours.result;
    const theirs = await cpuPerRequest(peer.child.pid!, SEQUENTIAL, () => sequential(peer.baseUrl, sql, SEQUENTIAL, newText));
    const peerTimes = theirs.result;
    const split = (cpu: { main: number; others: number }) => `${(cpu.main + cpu.others).toFixed(2)} (${cpu.main.toFixed(2)} + ${cpu.others.toFixed(2)})`;
    const floorTimes = await sequential(floor.baseUrl, sql, SEQUENTIAL, newText);
    const engineTimes: number[] = [];
    for (let index = 0; index < SEQUENTIAL; index++) engineTimes.push(await engine.run(textOf(sql, newText)));
    const engineCpu = await engine.cpuPerQuery(() => textOf(sql, newText), Math.min(SEQUENTIAL, 500));
    const cell = (times: number[]) => `${median(times).toFixed(2)}/${percentile(times, 0.99).toFixed(2)} ms`.padEnd(19);
    console.log(
      `${name.padEnd(17)}${cell(quarryTimes)}${cell(peerTimes)}${`${median(floorTimes).toFixed(2)} ms`.padEnd(16)}${`${median(engineTimes).toFixed(2)} ms`.padEnd(20)}${`${(median(quarryTimes) - median(engineTimes)).toFixed(2)} ms`.padEnd(16)}${(median(quarryTimes) / median(peerTimes)).toFixed(2).padEnd(14)}${split(ours)}, ${split(theirs)}, ${engineCpu.toFixed(2)} ms`,
    );
    if (name === 'SELECT 1') console.log(`                 target: SELECT 1 <= 1 ms median: ${median(quarryTimes) <= 1 ? 'MET' : 'MISSED'}`);
  }

  requireWrk();
  console.log(`\nwrk, ${WRK_SECONDS} s each, Cache-Control: no-cache (Quarry with every default plugin on; the peer with none)`);
  console.log('query            clients   Quarry req/s  p99        peer req/s    p99        req/s ratio (>= 0.8)   p99 ratio (<= 1.5)');
  for (const [name, sql, newText] of QUERIES.slice(1)) {
    for (const connections of [8, 50]) {
      const options = { connections, threads: 2, seconds: WRK_SECONDS, headers: { 'Cache-Control': 'no-cache' }, newTextEachRequest: newText === true };
      const ours = await runWrk(`${quarry.baseUrl}/v1/sql`, sql, options);
      const theirs = await runWrk(`${peer.baseUrl}/v1/sql`, sql, options);
      if (ours.non2xx > 0 || theirs.non2xx > 0) console.log(`            (non-2xx answers: Quarry ${ours.non2xx}, peer ${theirs.non2xx})`);
      const rate = ours.requestsPerSecond / theirs.requestsPerSecond;
      const tail = ours.p99Ms / theirs.p99Ms;
      console.log(
        `${name.padEnd(17)}${String(connections).padEnd(10)}${ours.requestsPerSecond.toFixed(0).padEnd(14)}${`${ours.p99Ms.toFixed(2)} ms`.padEnd(11)}${theirs.requestsPerSecond.toFixed(0).padEnd(14)}${`${theirs.p99Ms.toFixed(2)} ms`.padEnd(11)}${`${rate.toFixed(2)} ${rate >= 0.8 ? 'MET' : 'MISSED'}`.padEnd(23)}${tail.toFixed(2)} ${tail <= 1.5 ? 'MET' : 'MISSED'}`,
      );
    }
  }
} finally {
  engine.close();
  await Promise.all([quarry.stop(), stopChild(peer.child), stopChild(floor.child)]);
}

// 3. Where the time goes, by stage: quarryd with -vv logs each query's stages.
const stages = new StageLog();
const traced = await startServer(directory, { quarrydArguments: ['-vv'], onLog: stages.take });
try {
  console.log(`\nwhere an uncached query's time goes, by stage (quarryd -vv, which logs a line per query and per batch; mean us per query)`);
  console.log(`query            clients   ${QUERY_STAGES.map((stage) => stage.padStart(13)).join('')}         total`);
  for (const [name, sql, newText] of QUERIES) {
    for (const clients of [1, 8]) {
      const warmedUp = await concurrent(traced.baseUrl, sql, WARMUP, clients, newText);
      // The log reaches the bench through a pipe: wait until the warm-up's lines are all in.
      while (stages.count < warmedUp) await new Promise((resolve) => setTimeout(resolve, 20));
      stages.reset();
      const requests = await concurrent(traced.baseUrl, sql, Math.min(SEQUENTIAL, 1000), clients, newText);
      while (stages.count < requests) await new Promise((resolve) => setTimeout(resolve, 20));
      const means = stages.means();
      const total = QUERY_STAGES.reduce((sum, stage) => sum + means[stage], 0);
      console.log(`${name.padEnd(17)}${String(clients).padEnd(10)}${QUERY_STAGES.map((stage) => (means[stage] * 1000).toFixed(0).padStart(13)).join('')}${(total * 1000).toFixed(0).padStart(14)}`);
      stages.reset();
    }
  }
} finally {
  await traced.stop();
}

// 4. Where the time goes, by code: the point query against quarryd under the V8 profiler.
const profiles = mkdtempSync(path.join(os.tmpdir(), 'quarry-query-overhead-profile-'));
const profiled = await startServer(directory, { nodeArguments: ['--cpu-prof', `--cpu-prof-dir=${profiles}`] });
try {
  const sql = QUERIES[1]![1];
  await sequential(profiled.baseUrl, sql, WARMUP);
  const cpuBefore = processCpuMs(profiled.process.pid!);
  const fromMicros = Number(process.hrtime.bigint() / 1000n);
  const times = await sequential(profiled.baseUrl, sql, SEQUENTIAL);
  const toMicros = Number(process.hrtime.bigint() / 1000n);
  const cpuPerQuery = (processCpuMs(profiled.process.pid!) - cpuBefore) / SEQUENTIAL;
  await profiled.stop();
  const parts = [...profileBreakdown(profiles, { fromMicros, toMicros })].sort((a, b) => b[1] - a[1]);
  const total = parts.reduce((sum, [, ms]) => sum + ms, 0);
  const requests = SEQUENTIAL;
  console.log(`\nwhere the point query's time goes (quarryd's JS thread under --cpu-prof, the ${requests} measured requests only; median ${median(times).toFixed(2)} ms with the profiler on)`);
  console.log(`server CPU per query (all threads): ${cpuPerQuery.toFixed(3)} ms; of it on the JS thread: ${(total / requests).toFixed(3)} ms`);
  for (const [part, ms] of parts) {
    if (ms / requests < 0.001) continue;
    console.log(`  ${part.padEnd(52)}${((ms / requests) * 1000).toFixed(0).padStart(6)} us/query  ${((ms / total) * 100).toFixed(1).padStart(5)}%`);
  }
} finally {
  rmSync(profiles, { recursive: true, force: true });
  rmSync(directory, { recursive: true, force: true });
}
