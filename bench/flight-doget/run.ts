/**
 * flight-doget: `SELECT * FROM events` (10M rows × 8 mixed columns, an accelerated dataset
 * loaded from parquet) streamed by DoGet from quarryd to a client in this process, beside
 * the engine-only time for the same query in the same run (DuckDB in-process: raw chunks,
 * then chunks converted to Arrow batches as the engine does).
 * Targets: ≥ 5M rows/s through Flight, server RSS growth ≤ 300 MB.
 *
 * QUARRYD_NODE_FLAGS adds Node/V8 flags to the daemon's command line, e.g.
 * `QUARRYD_NODE_FLAGS=--heap-growing-percent=100` (see docs/json-encoding.md §7).
 */
import { spawn } from 'node:child_process';
import { DuckDBInstance } from '@duckdb/node-api';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { streamRecordBatches } from '../../core/engine/arrow/index.js';
import { median, mebibytes, quarrydEntry, repositoryRoot, residentBytes } from '../common/server.js';
import { ROWS, directory, ensureDataset, parquet } from './dataset.js';

const RUNS = 3;
const QUERY = 'SELECT * FROM events';

interface Daemon {
  pid: number;
  endpoint: string;
  stop(): Promise<void>;
}

/** quarryd (as shipped unless QUARRY_FROM_SOURCE=1), on free ports; resolves once the Flight endpoint is logged and the dataset loaded. */
async function startDaemon(): Promise<Daemon> {
  const nodeFlags = (process.env['QUARRYD_NODE_FLAGS'] ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeFlags, ...quarrydEntry(), directory, '--http', '127.0.0.1:0', '--flight', '127.0.0.1:0'], {
    cwd: repositoryRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    let flight: string | undefined;
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      flight ??= /Flight listening endpoint=(grpc:\/\/[\d.:]+)/.exec(log)?.[1];
      if (flight && /runtime ready/.test(log)) resolve(flight);
    });
    child.on('exit', (code) => reject(new Error(`quarryd exited with ${code}:\n${log}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    pid: child.pid!,
    endpoint,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** One DoGet of the whole result; `growthBytes` is the server's peak RSS above `baseline`. */
async function flightRun(client: FlightSqlClient, pid: number, baseline: number): Promise<{ ms: number; rows: number; growthBytes: number }> {
  let peak = residentBytes(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 20);
  const started = performance.now();
  let rows = 0;
  try {
    const stream = await client.queryStream(QUERY);
    for await (const batch of stream.batches) rows += batch.numRows;
  } finally {
    clearInterval(sampler);
  }
  const ms = performance.now() - started;
  peak = Math.max(peak, residentBytes(pid));
  return { ms, rows, growthBytes: peak - baseline };
}

async function engineRuns(): Promise<{ chunksMs: number; arrowMs: number }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE events AS SELECT * FROM read_parquet('${parquet}')`);
  const chunks: number[] = [];
  const arrow: number[] = [];
  for (let run = 0; run <= RUNS; run++) {
    let started = performance.now();
    const result = await connection.stream(QUERY);
    let rows = 0;
    for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) rows += chunk.rowCount;
    if (run > 0) chunks.push(performance.now() - started);
    started = performance.now();
    const { batches } = streamRecordBatches(await connection.stream(QUERY));
    rows = 0;
    for await (const batch of batches) rows += batch.numRows;
    if (run > 0) arrow.push(performance.now() - started);
    if (rows !== ROWS) throw new Error(`engine-only run read ${rows} rows`);
  }
  connection.closeSync();
  instance.closeSync();
  return { chunksMs: median(chunks), arrowMs: median(arrow) };
}

await ensureDataset();
const daemon = await startDaemon();
const client = FlightSqlClient.connect({ endpoint: daemon.endpoint });
let runs: Array<{ ms: number; rows: number; growthBytes: number }>;
let growth: number;
try {
  // RSS after the dataset loaded, before any query: growth counts everything DoGet needs.
  const baseline = residentBytes(daemon.pid);
  const warmUp = await flightRun(client, daemon.pid, baseline); // JIT, connection, first buffers
  runs = [];
  for (let run = 0; run < RUNS; run++) runs.push(await flightRun(client, daemon.pid, baseline));
  growth = Math.max(warmUp.growthBytes, ...runs.map((run) => run.growthBytes));
} finally {
  client.close();
  await daemon.stop();
}
// Engine-only afterwards, so the in-process DuckDB's memory and threads do not weigh on the client above.
const engine = await engineRuns();
if (runs.some((run) => run.rows !== ROWS)) throw new Error(`a Flight run read ${runs.map((run) => run.rows).join(', ')} rows`);
const flightMs = median(runs.map((run) => run.ms));
const rate = (ms: number) => `${((ROWS / ms) * 1000 / 1e6).toFixed(2)}M rows/s`;
console.log(`flight-doget: ${ROWS.toLocaleString()} rows × 8 columns, median of ${RUNS} runs`);
console.log(`  DoGet to another process   ${flightMs.toFixed(0).padStart(6)} ms  ${rate(flightMs)}  (target ≥ 5M rows/s; runs: ${runs.map((run) => run.ms.toFixed(0)).join(', ')} ms)`);
console.log(`  server RSS growth (peak)   ${mebibytes(growth).padStart(9)}  (target ≤ 300 MB)`);
console.log(`  engine only: DuckDB chunks ${engine.chunksMs.toFixed(0).padStart(6)} ms  ${rate(engine.chunksMs)}`);
console.log(`  engine only: Arrow batches ${engine.arrowMs.toFixed(0).padStart(6)} ms  ${rate(engine.arrowMs)}`);
console.log(`  Flight / engine Arrow      ${(flightMs / engine.arrowMs).toFixed(2)}×`);
