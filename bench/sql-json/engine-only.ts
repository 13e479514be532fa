/**
 * In-process SQL → JSON benchmark: DuckDB rendering the JSON itself (baseline) against
 * our path (stream → BatchAssembler → Arrow → JSON encoder). No HTTP; both start from the
 * same range()-generated query, so query execution is inside both timings.
 *
 * Run: `node --import tsx bench/sql-json/engine-only.ts [rows]` (default 1,000,000).
 * The machine is shared: compare figures taken close together, and repeat.
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch } from 'apache-arrow';
import { streamRecordBatches } from '../../core/engine/arrow/index.js';
import { encodeJson } from '../../core/http/encoders/json.js';
import { benchQuery } from './bench-query.js';

export interface Measurement {
  readonly label: string;
  readonly ms: number;
  readonly bytes: number;
}

let shared: Promise<DuckDBConnection> | null = null;
/** One in-memory DuckDB with default settings (threads = cores) for every measurement. */
function connection(): Promise<DuckDBConnection> {
  shared ??= DuckDBInstance.create(':memory:').then((instance) => instance.connect());
  return shared;
}

/**
 * Baseline A: DuckDB builds the whole array as one VARCHAR (`to_json` per row,
 * `string_agg`), read back as bytes without decoding to a JS string.
 */
export async function measureEngineJsonAggregate(rows: number): Promise<Measurement> {
  const db = await connection();
  const started = performance.now();
  const sql = `SELECT '[' || string_agg(to_json(t)::VARCHAR, ',') || ']' AS body FROM (${benchQuery(rows)}) t`;
  const { batches } = streamRecordBatches(await db.stream(sql));
  let bytes = 0;
  for await (const batch of batches) bytes += (batch.data.children[0]!.values as Uint8Array).byteLength;
  return { label: 'duckdb string_agg(to_json)', ms: performance.now() - started, bytes };
}

/** Baseline B: DuckDB's JSON writer (`COPY … (FORMAT JSON, ARRAY true)`), then the file read into memory. */
export async function measureEngineJsonCopy(rows: number): Promise<Measurement> {
  const db = await connection();
  const path = join(tmpdir(), `quarry-bench-${process.pid}.json`);
  const started = performance.now();
  await db.run(`COPY (${benchQuery(rows)}) TO '${path}' (FORMAT JSON, ARRAY true)`);
  const body = await readFile(path);
  const ms = performance.now() - started;
  await rm(path, { force: true });
  return { label: 'duckdb COPY TO json + read', ms, bytes: body.byteLength };
}

/** The faster of the two DuckDB baselines. */
export async function measureEngineJson(rows: number): Promise<Measurement> {
  const [aggregate, copy] = [await measureEngineJsonAggregate(rows), await measureEngineJsonCopy(rows)];
  return aggregate.ms <= copy.ms ? aggregate : copy;
}

/** Our path: streaming result → Arrow batches → JSON encoder; bytes of all yielded chunks. */
export async function measureEncoderJson(rows: number): Promise<Measurement> {
  const db = await connection();
  const started = performance.now();
  const input = streamRecordBatches(await db.stream(benchQuery(rows)));
  let bytes = 0;
  for await (const chunk of encodeJson(input)) bytes += chunk.byteLength;
  return { label: 'quarry arrow → json encoder', ms: performance.now() - started, bytes };
}

/** Arrow conversion alone (stream → batches), to split our time between the two stages. */
export async function measureArrowOnly(rows: number): Promise<Measurement> {
  const db = await connection();
  const started = performance.now();
  const { batches } = streamRecordBatches(await db.stream(benchQuery(rows)));
  let bytes = 0;
  for await (const batch of batches) bytes += batch.data.byteLength;
  return { label: 'quarry arrow only', ms: performance.now() - started, bytes };
}

/**
 * The JSON encoder alone, over batches already in memory: the number to watch when
 * optimising the encoder, free of DuckDB's share and of scheduling noise (CPU time).
 */
export async function measureJsonEncodeOnly(rows: number): Promise<Measurement> {
  const db = await connection();
  const { schema, batches } = streamRecordBatches(await db.stream(benchQuery(rows)));
  const collected: RecordBatch[] = [];
  for await (const batch of batches) collected.push(batch);
  const started = process.cpuUsage();
  let bytes = 0;
  const input = { schema, batches: (async function* () { yield* collected; })() };
  for await (const chunk of encodeJson(input)) bytes += chunk.byteLength;
  const used = process.cpuUsage(started);
  return { label: 'json encoder only (CPU time)', ms: (used.user + used.system) / 1000, bytes };
}

export async function medianOf(runs: number, measure: () => Promise<Measurement>): Promise<Measurement> {
  const results: Measurement[] = [];
  for (let i = 0; i < runs; i++) results.push(await measure());
  results.sort((a, b) => a.ms - b.ms);
  return results[Math.floor(runs / 2)]!;
}

export async function runEngineOnlyBenchmark(rows = 1_000_000, runs = 3): Promise<void> {
  await measureEncoderJson(10_000); // warm-up: JIT and DuckDB caches
  const lines: Measurement[] = [
    await medianOf(runs, () => measureEngineJsonAggregate(rows)),
    await medianOf(runs, () => measureEngineJsonCopy(rows)),
    await medianOf(runs, () => measureArrowOnly(rows)),
    await medianOf(runs, () => measureEncoderJson(rows)),
    await medianOf(runs, () => measureJsonEncodeOnly(rows)),
  ];
  const baseline = Math.min(lines[0]!.ms, lines[1]!.ms);
  console.log(`${rows.toLocaleString('en')} rows × 8 columns, median of ${runs}`);
  for (const line of lines) {
    const rate = Math.round(rows / (line.ms / 1000)).toLocaleString('en');
    console.log(`${line.label.padEnd(30)} ${line.ms.toFixed(0).padStart(6)} ms  ${rate.padStart(11)} rows/s  ${(line.bytes / 1048576).toFixed(1).padStart(6)} MiB  ${(line.ms / baseline).toFixed(2)}× baseline`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runEngineOnlyBenchmark(Number(process.argv[2] ?? 1_000_000));
}
