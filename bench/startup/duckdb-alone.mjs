/**
 * The baseline of the startup benchmark, run as its own process: DuckDB alone (same
 * @duckdb/node-api, same Node; plain JavaScript, as quarryd runs from dist/) loads the files a manifest names the way
 * Quarry does (accelerated: CREATE TABLE AS; live: CREATE VIEW), then prints how long that
 * took from process start. Input: a JSON list of {name, expression, accelerated} in argv[2].
 */
import { DuckDBInstance } from '@duckdb/node-api';

/** @type {Array<{ name: string, expression: string, accelerated: boolean }>} */
const datasets = JSON.parse(process.argv[2] ?? '[]');
const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
for (const dataset of datasets) {
  const kind = dataset.accelerated ? 'TABLE' : 'VIEW';
  await connection.run(`CREATE ${kind} "${dataset.name}" AS SELECT * FROM ${dataset.expression}`);
}
// Same check as /v1/ready's caller would do next: the data is queryable.
for (const dataset of datasets) await connection.run(`SELECT count(*) FROM "${dataset.name}"`);
process.stdout.write(`${JSON.stringify({ readyMs: performance.now() })}\n`);
instance.closeSync();
