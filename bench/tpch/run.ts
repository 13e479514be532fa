/**
 * tpch: Q1 and Q6 over an SF1-shaped lineitem (6M rows) through POST /v1/sql, against the
 * same queries on DuckDB in-process over the same data, in the same run.
 * Targets (issue #24): HTTP / in-process <= 1.10, and the time HTTP adds <= 1 ms (medians).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchData, median, startServer } from '../common/server.js';
import { LINEITEM_ROWS, Q1, Q6, lineitemSql } from './lineitem.js';

const RUNS = 9;
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

/** DuckDB in-process over the same parquet file, loaded into a table like the runtime does. */
async function openInProcess() {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE lineitem AS SELECT * FROM read_parquet('${parquet}')`);
  return {
    run: async (sql: string) => {
      const started = performance.now();
      await connection.runAndReadAll(sql);
      return performance.now() - started;
    },
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function timeHttp(baseUrl: string, sql: string): Promise<number> {
  const started = performance.now();
  // no-cache: the engine runs every time (the results cache would answer repeats otherwise).
  const response = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: sql, headers: { accept: 'application/json', 'cache-control': 'no-cache' } });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
  return performance.now() - started;
}

await ensureData();
writeFileSync(
  path.join(directory, 'quarry.yaml'),
  `version: v2\nkind: Spicepod\nname: tpch\ndatasets:\n  - from: file:lineitem.parquet\n    name: lineitem\n    acceleration:\n      enabled: true\n`,
);
const server = await startServer(directory);
const inProcess = await openInProcess();
try {
  console.log(`tpch: ${LINEITEM_ROWS} rows, median of ${RUNS} warm runs, HTTP and in-process runs alternated`);
  for (const [name, sql] of [['Q1', Q1], ['Q6', Q6]] as const) {
    await timeHttp(server.baseUrl, sql);
    await inProcess.run(sql);
    const httpTimes: number[] = [];
    const engineTimes: number[] = [];
    // Alternating keeps background load from favouring one side.
    for (let run = 0; run < RUNS; run++) {
      httpTimes.push(await timeHttp(server.baseUrl, sql));
      engineTimes.push(await inProcess.run(sql));
    }
    const http = median(httpTimes);
    const engine = median(engineTimes);
    const ratio = http / engine;
    const added = http - engine;
    console.log(`${name}: HTTP ${http.toFixed(1)} ms, DuckDB in-process ${engine.toFixed(1)} ms, ratio ${ratio.toFixed(2)} (target <= 1.10) ${ratio <= 1.1 ? 'MET' : 'MISSED'}, added ${added.toFixed(2)} ms (target <= 1 ms) ${added <= 1 ? 'MET' : 'MISSED'}`);
  }
} finally {
  inProcess.close();
  await server.stop();
}
