/**
 * sql-json: 1M rows × 8 mixed columns as JSON through POST /v1/sql (quarryd in another
 * process, body streamed and counted by a thin node:http client in a third process, see
 * http-client.ts), beside DuckDB producing the same JSON in-process in the same run.
 * Targets: HTTP / in-process <= 1.0; server RSS growth <= 200 MB.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchData, mebibytes, median, peakResidentDuring, residentBytes, startServer } from '../common/server.js';
import { benchQuery } from './bench-query.js';
import { measureEncoderJson, measureEngineJson } from './engine-only.js';

const ROWS = Number(process.env['SQL_JSON_ROWS'] ?? 1_000_000);
const RUNS = 5;

/** The HTTP client process: one request at a time over IPC. */
function startClient(): ChildProcess {
  return fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'http-client.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** POSTs the query from the client process; resolves with the time it measured and the bytes it read. */
function httpJson(client: ChildProcess, baseUrl: string, sql: string): Promise<{ ms: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    client.once('message', (reply: { ms: number; bytes: number } | { error: string }) => ('error' in reply ? reject(new Error(reply.error)) : resolve(reply)));
    client.send({ url: `${baseUrl}/v1/sql`, sql });
  });
}

const directory = path.join(benchData, 'sql-json');
mkdirSync(directory, { recursive: true });
writeFileSync(path.join(directory, 'quarry.yaml'), 'version: v2\nkind: Spicepod\nname: sql-json\ndatasets: []\n');
const server = await startServer(directory);
const client = startClient();
try {
  const sql = benchQuery(ROWS);
  await httpJson(client, server.baseUrl, benchQuery(10_000)); // warm-up
  const before = residentBytes(server.process.pid!);
  const httpRuns: number[] = [];
  const engineRuns: number[] = [];
  const encoderRuns: number[] = [];
  let peak = before;
  let bytes = 0;
  let engineBytes = 0;
  // Alternating HTTP and in-process runs keeps background load from favouring one side.
  for (let run = 0; run < RUNS; run++) {
    const { result, peakBytes } = await peakResidentDuring(server.process.pid!, () => httpJson(client, server.baseUrl, sql));
    httpRuns.push(result.ms);
    bytes = result.bytes;
    peak = Math.max(peak, peakBytes);
    const engine = await measureEngineJson(ROWS);
    engineRuns.push(engine.ms);
    engineBytes = engine.bytes;
    encoderRuns.push((await measureEncoderJson(ROWS)).ms);
  }
  const http = median(httpRuns);
  const engine = median(engineRuns);
  const ratio = http / engine;
  const growth = peak - before;
  console.log(`sql-json: ${ROWS} rows × 8 columns, median of ${RUNS}`);
  console.log(`  HTTP POST /v1/sql (JSON, streamed): ${http.toFixed(0)} ms, ${(bytes / 1e6).toFixed(1)} MB, ${((ROWS / http) * 1000 / 1e6).toFixed(2)} M rows/s`);
  console.log(`  DuckDB JSON in-process (baseline):  ${engine.toFixed(0)} ms, ${(engineBytes / 1e6).toFixed(1)} MB`);
  console.log(`  our encoder in-process (no HTTP):   ${median(encoderRuns).toFixed(0)} ms`);
  console.log(`  ratio HTTP / baseline: ${ratio.toFixed(2)} (target <= 1.0) ${ratio <= 1.0 ? 'MET' : 'MISSED'}`);
  console.log(`  server RSS growth: ${mebibytes(growth)} (target <= 200 MB) ${growth <= 200 * 1024 * 1024 ? 'MET' : 'MISSED'}`);
} finally {
  client.kill();
  await server.stop();
}
