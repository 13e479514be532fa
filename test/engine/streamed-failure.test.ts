import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { openBatchStream } from '../../core/engine/arrow/index.js';
import { StreamedResultFailure, throwIfResultFailed } from '../../core/engine/native/result-status.js';

/**
 * The engine's streamed results end in one of two ways, and the batch stream tells them
 * apart: fetchChunk() answers null for both, the native helper (native/) reads which.
 */

const failingAt = (row: number, rows: number) => `SELECT CASE WHEN i = ${row} THEN error('boom at ${row}') ELSE i END AS v FROM range(${rows}) t(i)`;
/** DuckDB 1.5 may keep only "Interrupted!" for a failure on one of its worker threads (see result-stream.ts). */
const ENGINE_MESSAGE = (row: number) => new RegExp(`boom at ${row}|INTERRUPT Error`);

async function readAll(sql: string): Promise<{ rows: number; error: Error | undefined }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  let rows = 0;
  try {
    const { batches } = await openBatchStream(await (await connection.prepare(sql)).stream());
    for await (const batch of batches) rows += batch.numRows;
    return { rows, error: undefined };
  } catch (error) {
    return { rows, error: error as Error };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

test('a query failing after many batches throws the engine error at its end, after the batches before it', async (t) => {
  const { rows, error } = await readAll(failingAt(5_000_000, 10_000_000));
  t.truthy(error, `the stream ended as complete after ${rows} rows`);
  t.regex(error!.message, ENGINE_MESSAGE(5_000_000));
  t.true(rows > 0 && rows < 10_000_000, `${rows} rows before the error`);
});

test('a query failing inside its first batch throws before any batch', async (t) => {
  for (const at of [0, 150_000]) {
    const { rows, error } = await readAll(failingAt(at, 300_000));
    t.regex(error?.message ?? 'no error', ENGINE_MESSAGE(at));
    t.is(rows, 0);
  }
});

test('a query that ends is read whole, its last null chunk is not a failure', async (t) => {
  const { rows, error } = await readAll('SELECT i FROM range(3000000) t(i)');
  t.is(error, undefined);
  t.is(rows, 3_000_000);
});

test('the helper reads a streamed result\'s error and refuses anything that is not a DuckDB result', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const result = await (await connection.prepare(failingAt(5_000_000, 10_000_000))).stream();
  while ((await result.fetchChunk())?.rowCount) { /* read to the null chunk */ }
  const failure = t.throws(() => throwIfResultFailed(result));
  t.true(failure instanceof StreamedResultFailure);
  t.regex(failure!.message, ENGINE_MESSAGE(5_000_000));
  const ended = await connection.stream('SELECT 1');
  while ((await ended.fetchChunk())?.rowCount) { /* read to the end */ }
  t.notThrows(() => throwIfResultFailed(ended));
  // A connection's external, or a plain object, is not a result: refused, never read as one.
  t.throws(() => throwIfResultFailed({ result: (connection as unknown as { connection: unknown }).connection } as never), { message: /not a DuckDB result/ });
  t.throws(() => throwIfResultFailed({ result: {} } as never), { message: /DuckDB result external/ });
  connection.closeSync();
  instance.closeSync();
});
