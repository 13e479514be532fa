import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchData } from '../common/server.js';

export const ROWS = 10_000_000;
export const directory = path.join(benchData, 'flight-doget');
export const parquet = path.join(directory, 'events.parquet');

/** 8 mixed columns: BIGINT, INTEGER, DOUBLE, VARCHAR, DATE, BOOLEAN, TIMESTAMP, DECIMAL(12,2). */
export const SELECT_ROWS = `
SELECT
  i AS id,
  (hash(i) % 1000000)::INTEGER AS quantity,
  (hash(i * 7) % 100000) / 100.0 AS price,
  'customer-' || (hash(i * 13) % 50000)::VARCHAR AS customer,
  DATE '2020-01-01' + (i % 1500)::INTEGER AS day,
  (i % 3 = 0) AS flagged,
  TIMESTAMP '2020-01-01 00:00:00' + to_seconds(i) AS at,
  ((hash(i * 31) % 10000000) / 100.0)::DECIMAL(12, 2) AS amount
FROM range(${ROWS}) t(i)`;

/** Writes the parquet file and the manifest once; later runs reuse them. */
export async function ensureDataset(): Promise<void> {
  mkdirSync(directory, { recursive: true });
  writeFileSync(
    path.join(directory, 'quarry.yaml'),
    `version: v2
kind: Spicepod
name: flight-doget
datasets:
  - from: file:events.parquet
    name: events
    acceleration:
      enabled: true
runtime:
  caching:
    sql_results:
      enabled: false
`,
  );
  if (existsSync(parquet)) return;
  const started = performance.now();
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`COPY (${SELECT_ROWS}) TO '${parquet}' (FORMAT PARQUET)`);
  connection.closeSync();
  instance.closeSync();
  console.log(`generated ${ROWS.toLocaleString()} rows in ${((performance.now() - started) / 1000).toFixed(1)} s → ${parquet}`);
}
