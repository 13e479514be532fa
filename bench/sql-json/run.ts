/**
 * sql-json: 1M rows × 8 mixed columns as JSON through POST /v1/sql (quarryd in another
 * process, body streamed and counted), beside DuckDB producing the same JSON in-process in
 * the same run. Targets: HTTP / in-process <= 1.0; server RSS growth <= 200 MB.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { benchData, mebibytes, median, peakResidentDuring, residentBytes, startServer } from '../common/server.js';
import { benchQuery } from './bench-query.js';
import { measureEncoderJson, measureEngineJson } from './engine-only.js';

const ROWS = Number(process.env['SQL_JSON_ROWS'] ?? 1_000_000);
const RUNS = 5;

/**
 * POSTs the query and counts the response bytes with node:http: a thin client, so the
 * figure is the server's (fetch's web streams would spend a core of their own on 160 MB).
 */
function httpJson(baseUrl: string, sql: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}/v1/sql`, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'text/plain' } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`HTTP ${response.statusCode}`));
        response.resume();
        return;
      }
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      response.on('end', () => resolve({ ms: performance.now() - started, bytes }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(sql);
  });
}

const directory = path.join(benchData, 'sql-json');
mkdirSync(directory, { recursive: true });
writeFileSync(path.join(directory, 'quarry.yaml'), 'version: v2\nkind: Spicepod\nname: sql-json\ndatasets: []\n');
const server = await startServer(directory);
try {
  const sql = benchQuery(ROWS);
  await httpJson(server.baseUrl, benchQuery(10_000)); // warm-up
  const before = residentBytes(server.process.pid!);
  const httpRuns: number[] = [];
  const engineRuns: number[] = [];
  const encoderRuns: number[] = [];
  let peak = before;
  let bytes = 0;
  let engineBytes = 0;
  // Alternating HTTP and in-process runs keeps background load from favouring one side.
  for (let run = 0; run < RUNS; run++) {
    const { result, peakBytes } = await peakResidentDuring(server.process.pid!, () => httpJson(server.baseUrl, sql));
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
  await server.stop();
}
