/**
 * tpch: Q1 and Q6 over an SF1-shaped lineitem (6M rows) through POST /v1/sql, against the
 * same queries on DuckDB in-process over the same data, in the same run.
 * Target: HTTP / in-process <= 1.15.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchData, median, startServer } from '../common/server.js';
import { LINEITEM_ROWS, Q1, Q6, lineitemSql } from './lineitem.js';

const RUNS = 5;
const directory = path.join(benchData, 'tpch');
const parquet = path.join(directory, 'lineitem.parquet');

async function ensureData(): Promise<void> {
  if (existsSync(parquet)) return;
  mkdirSync(directory, { recursive: true });
  const started = performance.now();
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`COPY (${lineitemSql()}) TO '${parquet}' (FORMAT PARQUET)`);
  connection.closeSync();
  instance.closeSync();
  console.log(`generated ${LINEITEM_ROWS} lineitem rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

async function timeInProcess(sql: string): Promise<number[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE lineitem AS SELECT * FROM read_parquet('${parquet}')`);
  await connection.runAndReadAll(sql); // warm-up
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    await connection.runAndReadAll(sql);
    times.push(performance.now() - started);
  }
  connection.closeSync();
  instance.closeSync();
  return times;
}

async function timeHttp(baseUrl: string, sql: string): Promise<number[]> {
  const post = async () => {
    const response = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: sql, headers: { accept: 'application/json' } });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    await response.arrayBuffer();
  };
  await post(); // warm-up
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    await post();
    times.push(performance.now() - started);
  }
  return times;
}

await ensureData();
writeFileSync(
  path.join(directory, 'quarry.yaml'),
  `version: v2\nkind: Spicepod\nname: tpch\ndatasets:\n  - from: file:lineitem.parquet\n    name: lineitem\n    acceleration:\n      enabled: true\n`,
);
const server = await startServer(directory);
try {
  console.log(`tpch: ${LINEITEM_ROWS} rows, median of ${RUNS} warm runs`);
  for (const [name, sql] of [['Q1', Q1], ['Q6', Q6]] as const) {
    const http = median(await timeHttp(server.baseUrl, sql));
    const engine = median(await timeInProcess(sql));
    const ratio = http / engine;
    console.log(`${name}: HTTP ${http.toFixed(1)} ms, DuckDB in-process ${engine.toFixed(1)} ms, ratio ${ratio.toFixed(2)} (target <= 1.15) ${ratio <= 1.15 ? 'MET' : 'MISSED'}`);
  }
} finally {
  await server.stop();
}
