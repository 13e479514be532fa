import { DuckDBInstance, type DuckDBConnection, type DuckDBMaterializedResult, type DuckDBResult } from '@duckdb/node-api';
import type { RecordBatch } from 'apache-arrow';
import test, { type ExecutionContext } from 'ava';
import { arrowSchemaFor, streamRecordBatches, type StreamOptions } from '../../../core/engine/arrow/index.js';
import { nativePlanFor } from '../../../core/engine/arrow/native-batches.js';
import { BatchAssembler } from '../../../core/engine/arrow/chunk-to-arrow.js';
import { arrowSchemaForColumns } from '../../../core/engine/arrow/duckdb-to-arrow-type.js';
import { fetchNativeBatch, fetchNativeBatchNow, openNativeFetcher, releaseNativeFetcher } from '../../../core/engine/native/batch-fetch.js';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import { arrowRows, assertMatchesDuckDB } from './helpers/compare.js';

// A result whose columns the native helper converts is read by it (native/duckdb-batch-fetch.c):
// a streamed one on a worker thread, a materialised one on the JS thread. Any other result is
// read by BatchAssembler. These tests hold the helper, both ways, to the assembler's batches,
// cell for cell and cut for cut, and to node-api's values.

let instance: DuckDBInstance;
const connect = (): Promise<DuckDBConnection> => instance.connect();

test.before(async () => {
  instance = await DuckDBInstance.create(':memory:');
});

/** Every column type the helper takes, with NULLs, extremes and negative decimals. */
const EVERY_NATIVE_TYPE = `
SELECT
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 3 = 0 END AS flag,
  (i % 256 - 128)::TINYINT AS tiny, (i % 256)::UTINYINT AS utiny,
  (i * 3 - 15000)::SMALLINT AS small, (i % 65536)::USMALLINT AS usmall,
  CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 1000 - 2000000000)::INTEGER END AS int, (i * 100000)::UINTEGER AS uint,
  (i * 1e12 - 9e18)::BIGINT AS big, (i * 1e15)::UBIGINT AS ubig,
  (i / 3.0)::FLOAT AS real, CASE WHEN i % 11 = 0 THEN 'NaN'::DOUBLE ELSE i / -7.0 END AS dbl,
  DATE '1969-12-25' + (i % 4000)::INTEGER AS day, TIME '00:00:00' + to_microseconds(i * 1000) AS tod,
  TIMESTAMP '1960-01-01' + to_seconds(i * 3607) AS ts, (TIMESTAMP '2020-01-01' + to_seconds(i))::TIMESTAMP_S AS ts_s,
  (TIMESTAMP '2020-01-01' + to_seconds(i))::TIMESTAMP_MS AS ts_ms, (TIMESTAMP '2020-01-01' + to_seconds(i))::TIMESTAMP_NS AS ts_ns,
  TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_seconds(i) AS tstz,
  (i::HUGEINT * 17014118346046923173168730371588 - 100) AS huge,
  ((i - 1500) / 100.0)::DECIMAL(4, 2) AS dec4, ((i - 1500) * 1234.56)::DECIMAL(9, 2) AS dec9,
  CASE WHEN i % 13 = 0 THEN NULL ELSE ((i - 1500) * 123456789.123)::DECIMAL(18, 3) END AS dec18,
  ((i - 1500)::HUGEINT * 10000000000000000000 + 1)::DECIMAL(38, 0) AS dec38,
  CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'short' WHEN 3 THEN 'ünïcødé ✓ ' || i ELSE repeat('long-', 1 + i % 40) || i END AS text,
  CASE WHEN i % 4 = 0 THEN NULL ELSE ('\\x00\\xFF' || i::VARCHAR)::BLOB END AS bytes
FROM range(5000) t(i)`;

/** Batches of `result`, read to the end. */
async function batchesOf(result: DuckDBResult, options?: StreamOptions): Promise<RecordBatch[]> {
  const collected: RecordBatch[] = [];
  for await (const batch of streamRecordBatches(result, options).batches) collected.push(batch);
  return collected;
}

/** The batches BatchAssembler makes of a materialised result's chunks (what any result the helper does not take goes through). */
function assembled(result: DuckDBMaterializedResult, options?: StreamOptions): RecordBatch[] {
  const types = result.columnTypes();
  const assembler = new BatchAssembler(arrowSchemaForColumns(result.columnNames(), types), types, options);
  const batches: RecordBatch[] = [];
  for (let index = 0; index < result.chunkCount; index++) batches.push(...assembler.append(result.getChunk(index)));
  const last = assembler.flush();
  return last === null ? batches : [...batches, last];
}

/** The same query streamed and materialised (native helper, on a worker and on this thread), and through BatchAssembler. */
async function bothWays(sql: string, options?: StreamOptions): Promise<{ native: RecordBatch[]; materialised: RecordBatch[]; assembled: RecordBatch[] }> {
  const connection = await connect();
  return {
    native: await batchesOf(await connection.stream(sql), options),
    materialised: await batchesOf(await connection.run(sql), options),
    assembled: assembled(await connection.run(sql), options),
  };
}

/** The helper's batches against the assembler's: cuts, null counts, cells, one schema. */
function assertSameBatches(t: ExecutionContext, native: RecordBatch[], assembled: RecordBatch[], what: string): void {
  t.deepEqual(native.map((batch) => batch.numRows), assembled.map((batch) => batch.numRows), `cuts ${what}`);
  t.deepEqual(
    native.map((batch) => batch.data.children.map((child) => child.nullCount)),
    assembled.map((batch) => batch.data.children.map((child) => child.nullCount)),
    `null counts ${what}`,
  );
  t.deepEqual(arrowRows(native), arrowRows(assembled), `cells ${what}`);
  t.true(native.every((batch, i) => batch.schema === native[0]!.schema && batch.schema.fields.length === assembled[i]!.schema.fields.length));
}

test('the helper takes every column type of the query, and not a list', async (t) => {
  const connection = await connect();
  const result = await connection.stream(EVERY_NATIVE_TYPE);
  t.not(nativePlanFor(result.columnTypes(), arrowSchemaFor(result)), null);
  const listed = await connection.stream('SELECT 1 AS a, [1, 2] AS b');
  t.is(nativePlanFor(listed.columnTypes(), arrowSchemaFor(listed)), null);
});

test('every type the helper takes matches node-api values cell by cell, in batches cut inside chunks', async (t) => {
  const connection = await connect();
  await assertMatchesDuckDB(t, connection, EVERY_NATIVE_TYPE);
  await assertMatchesDuckDB(t, connection, EVERY_NATIVE_TYPE, { targetRowsPerBatch: 700 });
  await assertMatchesDuckDB(t, connection, EVERY_NATIVE_TYPE, { targetBytesPerBatch: 40_000 });
});

test('streamed and materialised results give the batches the assembler makes: rows, cuts, null counts and cells', async (t) => {
  // 100-row batches are handed over as copies in buffers the helper keeps for the next batch;
  // the default batches of 5,000 rows as external buffers.
  for (const options of [undefined, { targetRowsPerBatch: 1000 }, { targetRowsPerBatch: 100 }, { targetBytesPerBatch: 64 * 1024 }]) {
    const { native, materialised, assembled } = await bothWays(EVERY_NATIVE_TYPE, options);
    assertSameBatches(t, native, assembled, `streamed, ${JSON.stringify(options)}`);
    assertSameBatches(t, materialised, assembled, `materialised, ${JSON.stringify(options)}`);
  }
});

test('200k rows come in 65,536-row batches; a chunk of strings over 16 MiB is cut by bytes the same way', async (t) => {
  const rows = await bothWays('SELECT i::BIGINT AS id, i % 2 = 0 AS even FROM range(200000) t(i)');
  t.deepEqual(rows.native.map((batch) => batch.numRows), [65536, 65536, 65536, 3392]);
  // 2,048 rows of 10 KB: 20 MiB in one chunk.
  const wide = await bothWays("SELECT i AS id, repeat('w', 10000) || i AS wide FROM range(3000) t(i)");
  t.true(wide.native.length >= 2, `${wide.native.length} batches`);
  assertSameBatches(t, wide.native, wide.assembled, 'streamed');
  assertSameBatches(t, wide.materialised, wide.assembled, 'materialised');
});

test('a value over the limit fails the result, streamed or materialised, with the coded error naming the column', async (t) => {
  const connection = await connect();
  const sql = "SELECT i, CASE WHEN i = 4000 THEN repeat('x', 5000) ELSE 'ok' END AS note FROM range(6000) t(i)";
  // One after the other: a connection's next statement closes its streamed result.
  for (const run of [() => connection.stream(sql), () => connection.run(sql)]) {
    const error = await t.throwsAsync(batchesOf(await run(), { maxValueBytes: 1000 }));
    t.true(error instanceof QuarryError);
    t.is((error as QuarryError).code, 'RESULT_VALUE_TOO_LARGE');
    t.regex(error!.message, /column "note" has a value of 5000 bytes; a result value may be at most 1000 bytes/);
  }
});

test('a query failing after some batches fails the iteration with the engine\'s error', async (t) => {
  const connection = await connect();
  const sql = "SELECT i, CASE WHEN i = 150000 THEN error('boom at 150000') ELSE i END AS v FROM range(300000) t(i)";
  const error = await t.throwsAsync(batchesOf(await connection.stream(sql)));
  t.regex(error!.message, /boom at 150000/);
});

test('the helper refuses wrong arguments and a second fetch while one runs, and never crashes', async (t) => {
  const connection = await connect();
  const result = await connection.stream('SELECT i FROM range(100000) t(i)');
  const plan = nativePlanFor(result.columnTypes(), arrowSchemaFor(result))!;
  const options = { targetRows: 65536, targetBytes: 1 << 20, largeChunkBytes: 1 << 24, maxValueBytes: 1 << 20 };
  t.throws(() => openNativeFetcher({ result: {} } as never, plan, options), { message: /DuckDB result external/ });
  t.throws(() => openNativeFetcher(result, new Int32Array([7, 8, 0]), options), { message: /column kind or width/ });
  t.throws(() => openNativeFetcher(result, new Int32Array([0, 3, 0]), options), { message: /column kind or width/ });
  t.throws(() => openNativeFetcher(result, new Int32Array(0), options), { message: /three entries a column/ });
  t.throws(() => openNativeFetcher(result, plan, { ...options, targetRows: 0 }), { message: /targetRows/ });
  t.throws(() => fetchNativeBatch({} as never), { message: /fetcher from open/ });
  const fetcher = openNativeFetcher(result, plan, options);
  const first = fetchNativeBatch(fetcher);
  t.throws(() => fetchNativeBatch(fetcher), { message: /already running/ });
  t.throws(() => releaseNativeFetcher(fetcher), { message: /still running/ });
  const entries = (await first)!;
  t.is(entries[0], 65536);
  t.is(entries[2], false);
  const second = (await fetchNativeBatch(fetcher))!;
  t.is(second[0], 100000 - 65536);
  t.is(second[2], true, 'the last batch says it is the last');
  t.is(await fetchNativeBatch(fetcher), null);
  releaseNativeFetcher(fetcher);
  t.is(await fetchNativeBatch(fetcher), null, 'a released fetcher answers the end');
  const values = new BigInt64Array(entries[5] as ArrayBuffer);
  t.is(values[65535], 65535n);

  // On this thread (a materialised result): the same batches at once, and the same refusals.
  t.throws(() => fetchNativeBatchNow({} as never), { message: /fetcher from open/ });
  const whole = openNativeFetcher(await connection.run('SELECT i FROM range(100000) t(i)'), plan, options);
  const now = fetchNativeBatchNow(whole)!;
  t.deepEqual([now[0], now[2]], [65536, false]);
  t.is(new BigInt64Array(now[5] as ArrayBuffer)[65535], 65535n);
  t.deepEqual([fetchNativeBatchNow(whole)![0], fetchNativeBatchNow(whole)], [100000 - 65536, null]);
  releaseNativeFetcher(whole);
  t.is(fetchNativeBatchNow(whole), null, 'a released fetcher answers the end');
  // A materialised result's end is known from its row count: the batch holding its last row says so.
  const exact = openNativeFetcher(await connection.run('SELECT i FROM range(65536) t(i)'), plan, options);
  t.deepEqual(fetchNativeBatchNow(exact)!.slice(0, 3), [65536, 32, true]);
  t.is(fetchNativeBatchNow(exact), null);
  t.is(fetchNativeBatchNow(openNativeFetcher(await connection.run('SELECT i FROM range(10) t(i) WHERE i > 10'), plan, options)), null, 'an empty result has no batch');
  const running = openNativeFetcher(await connection.stream('SELECT i FROM range(100000) t(i)'), plan, options);
  const pending = fetchNativeBatch(running);
  t.throws(() => fetchNativeBatchNow(running), { message: /already running/ });
  t.is((await pending)![0], 65536);
  t.throws(() => fetchNativeBatchNow(running), { message: /materialised result/ }, 'a streamed result is never fetched on the event loop');
  releaseNativeFetcher(running);
});

test('an abandoned streamed result frees its helper and the connection runs the next query', async (t) => {
  const connection = await connect();
  const { batches } = streamRecordBatches(await connection.stream('SELECT i, i::VARCHAR AS s FROM range(1000000) t(i)'));
  let seen = 0;
  for await (const batch of batches) {
    seen += batch.numRows;
    break;
  }
  t.is(seen, 65536);
  const next = await connection.run('SELECT 42 AS answer');
  t.is((await next.getRows())[0]![0], 42);
});
