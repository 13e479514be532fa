/**
 * tpch: Q1 and Q6 over an SF1-shaped lineitem (6M rows) through POST /v1/sql, against the
 * same queries on DuckDB in-process over the same data, in the same run.
 * Targets (issue #24): HTTP / in-process <= 1.10, and the time HTTP adds <= 1 ms (medians).
 *
 * Beside Quarry, the query-overhead bench's peer (fastify + @duckdb/node-api answering JSON
 * rows, peer-server.ts) answers the same queries: what any HTTP server in another process adds
 * on this machine. Both servers first answer TPCH_SERVER_WARMUP `SELECT 1`s, so their code is
 * compiled as a running server's is (Quarry's SELECT 1 fell from 2.9 ms over its first 500
 * requests to ~0.7 ms, see query-overhead), and each round runs the three in turn, the order
 * reversed every other round. The client is node:http on a kept-alive connection
 * (bench/common/sql-client.ts).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { benchData, median, startServer } from '../common/server.js';
import { startChild, stopChild } from '../common/child-server.js';
import { SqlClient } from '../common/sql-client.js';
import { LINEITEM_ROWS, Q1, Q6, lineitemSql } from './lineitem.js';

const RUNS = Number(process.env['TPCH_RUNS'] ?? 25);
const SERVER_WARMUP = Number(process.env['TPCH_SERVER_WARMUP'] ?? 3000);
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

await ensureData();
writeFileSync(
  path.join(directory, 'quarry.yaml'),
  `version: v2\nkind: Spicepod\nname: tpch\ndatasets:\n  - from: file:lineitem.parquet\n    name: lineitem\n    acceleration:\n      enabled: true\n`,
);
const server = await startServer(directory);
const peer = await startChild('bench/query-overhead/peer-server.ts', parquet, 'lineitem');
const inProcess = await openInProcess();
const quarryClient = new SqlClient(server.baseUrl);
const peerClient = new SqlClient(peer.baseUrl);
try {
  for (let index = 0; index < SERVER_WARMUP; index++) {
    await quarryClient.time('SELECT 1');
    await peerClient.time('SELECT 1');
  }
  console.log(`tpch: ${LINEITEM_ROWS} rows, median of ${RUNS} runs each after ${SERVER_WARMUP} SELECT 1s per server; Quarry, the peer (fastify + @duckdb/node-api) and DuckDB in-process take turns`);
  for (const [name, sql] of [['Q1', Q1], ['Q6', Q6]] as const) {
    const sides = [
      { times: [] as number[], run: () => quarryClient.time(sql) },
      { times: [] as number[], run: () => peerClient.time(sql) },
      { times: [] as number[], run: () => inProcess.run(sql) },
    ];
    for (const side of sides) await side.run();
    // Turns reversed every other round: a side is never always the one after the long idle.
    for (let round = 0; round < RUNS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) side.times.push(await side.run());
    }
    const [quarry, peerMs, engine] = sides.map((side) => median(side.times)) as [number, number, number];
    const ratio = quarry / engine;
    const added = quarry - engine;
    console.log(`${name}: HTTP ${quarry.toFixed(1)} ms, DuckDB in-process ${engine.toFixed(1)} ms, ratio ${ratio.toFixed(2)} (target <= 1.10) ${ratio <= 1.1 ? 'MET' : 'MISSED'}, added ${added.toFixed(2)} ms (target <= 1 ms) ${added <= 1 ? 'MET' : 'MISSED'}; the peer ${peerMs.toFixed(1)} ms (adds ${(peerMs - engine).toFixed(2)} ms)`);
  }
} finally {
  quarryClient.close();
  peerClient.close();
  inProcess.close();
  await Promise.all([server.stop(), stopChild(peer.child)]);
}
