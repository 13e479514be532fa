/**
 * ingest: Arrow batches appended into a DuckDB table (`appendBatches`: Flight DoPut ingest,
 * rows fetched from live sources and from a cluster's executors). Rows per second of six
 * fixed-width columns (BIGINT, INTEGER, DOUBLE, DECIMAL(10,1), DATE, TIMESTAMP) plus one VARCHAR
 * (~20 bytes, some non-ASCII), against two baselines
 * measured in the same run: the value-by-value conversion every column took before (each
 * value made a DuckDB value object, then written into the chunk), and DuckDB building the same
 * rows itself (`INSERT ... SELECT FROM range`, no JavaScript involved).
 */
import { DuckDBDataChunk, DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { Date_, DateUnit, Decimal, Field, Float64, Int32, Int64, makeData, RecordBatch, Schema, Struct, TimeUnit, Timestamp, Utf8, vectorFromArray, type Data, type DataType } from 'apache-arrow';
import { appendBatches } from '../../core/engine/append.js';
import { duckdbValuesFor } from '../../core/engine/arrow-to-duckdb-values.js';
import { median } from '../common/server.js';

const ROWS = Number(process.env['INGEST_ROWS'] ?? 1_000_000);
const BATCH_ROWS = 65_536;
const RUNS = 5;
const TABLE = 'CREATE OR REPLACE TABLE t (id BIGINT, n INTEGER, x DOUBLE, amount DECIMAL(10,1), day DATE, seen TIMESTAMP, label VARCHAR)';

function batchOf(first: number, length: number): RecordBatch {
  const ids = new BigInt64Array(length);
  const numbers = new Int32Array(length);
  const doubles = new Float64Array(length);
  const amounts = new Uint32Array(length * 4);
  const days = new Int32Array(length);
  const micros = new BigInt64Array(length);
  for (let index = 0; index < length; index++) {
    const row = first + index;
    ids[index] = BigInt(row);
    numbers[index] = row % 1_000;
    doubles[index] = row / 7;
    amounts[index * 4] = row % 100_000; // non-negative and small: the low word holds it
    days[index] = 19_000 + (row % 365);
    micros[index] = BigInt(row) * 1_000_000n;
  }
  const columns: Array<[string, DataType, ArrayBufferView]> = [
    ['id', new Int64(), ids], ['n', new Int32(), numbers], ['x', new Float64(), doubles],
    ['amount', new Decimal(1, 10, 128), amounts], ['day', new Date_(DateUnit.DAY), days], ['seen', new Timestamp(TimeUnit.MICROSECOND), micros],
  ];
  const labels = vectorFromArray(Array.from({ length }, (_, index) => `customér ${first + index}`), new Utf8());
  const schema = new Schema([...columns.map(([name, type]) => new Field(name, type, false)), new Field('label', new Utf8(), false)]);
  const children = [...columns.map(([, type, data]) => makeData({ type, length, nullCount: 0, data } as never) as Data), labels.data[0]!];
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }));
}

const batches = Array.from({ length: Math.ceil(ROWS / BATCH_ROWS) }, (_, index) => batchOf(index * BATCH_ROWS, Math.min(BATCH_ROWS, ROWS - index * BATCH_ROWS)));
const schema = batches[0]!.schema;

/** The loop appendBatches ran before: every value converted to a DuckDB value, then set into the chunk. */
async function valueByValue(connection: DuckDBConnection): Promise<void> {
  const appender = await connection.createAppender('t');
  const types = Array.from({ length: appender.columnCount }, (_, index) => appender.columnType(index));
  for (const batch of batches) {
    for (let start = 0; start < batch.numRows; start += 2048) {
      const count = Math.min(2048, batch.numRows - start);
      const chunk = DuckDBDataChunk.create(types, count);
      types.forEach((type, column) => chunk.setColumnValues(column, duckdbValuesFor(batch.getChildAt(column)!, start, count, type, schema.fields[column]!.name)));
      appender.appendDataChunk(chunk);
    }
  }
  appender.flushSync();
  appender.closeSync();
}

async function timed(connection: DuckDBConnection, append: () => Promise<unknown>): Promise<number> {
  await connection.run(TABLE);
  const started = performance.now();
  await append();
  const seconds = (performance.now() - started) / 1000;
  const count = (await connection.runAndReadAll('SELECT count(*) FROM t')).getRows()[0]![0];
  if (Number(count) !== ROWS) throw new Error(`appended ${String(count)} rows, expected ${ROWS}`);
  return ROWS / seconds;
}

const instance = await DuckDBInstance.create(':memory:');
const connection = await instance.connect();
const results = { direct: [] as number[], valueByValue: [] as number[], engine: [] as number[] };
for (let run = 0; run < RUNS; run++) {
  results.direct.push(await timed(connection, () => appendBatches({ connection, table: { catalog: 'memory', schema: 'main', name: 't' }, schema, batches: (async function* () { yield* batches; })(), signal: new AbortController().signal })));
  results.valueByValue.push(await timed(connection, () => valueByValue(connection)));
  results.engine.push(await timed(connection, () => connection.run(`INSERT INTO t SELECT range, range % 1000, range / 7, (range % 100000) / 10, DATE '2022-01-08' + CAST(range % 365 AS INTEGER), make_timestamp(range * 1000000), 'customér ' || range FROM range(${ROWS})`)));
}
connection.closeSync();
instance.closeSync();

const figure = (rowsPerSecond: number) => `${(rowsPerSecond / 1e6).toFixed(2)}M rows/s`;
const [direct, before, engine] = [median(results.direct), median(results.valueByValue), median(results.engine)];
console.log(`ingest: ${ROWS} rows of BIGINT, INTEGER, DOUBLE, DECIMAL(10,1), DATE, TIMESTAMP, VARCHAR from Arrow batches of ${BATCH_ROWS}; median of ${RUNS} alternating runs`);
console.log(`  appendBatches (columns copied into DuckDB's vectors, strings as their bytes): ${figure(direct)}`);
console.log(`  baseline, value by value (the conversion it replaced): ${figure(before)}  -> ${(direct / before).toFixed(1)}x`);
console.log(`  reference, DuckDB building the same rows itself: ${figure(engine)}  -> appendBatches at ${(direct / engine).toFixed(2)}x of it`);
