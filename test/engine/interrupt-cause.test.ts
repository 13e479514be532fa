import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { engineErrorBehindInterrupt } from '../../core/engine/interrupt-cause.js';
import { streamResult } from '../../core/engine/result-stream.js';
import { QuarryError } from '../../core/errors/quarry-error.js';

/**
 * DuckDB 1.5 sometimes keeps only "Interrupted!" for a query that failed on a worker thread
 * (see interrupt-cause.ts). The race itself cannot be forced here; an interrupt from outside
 * the stream's signal (nothing the caller asked for) reaches the same path.
 */

const INTERRUPTED = new Error('INTERRUPT Error: Interrupted!');
const KEPT = /^Engine Error: the query failed on one of the engine's threads/;
const failingAt = (row: number, rows: number) => `SELECT CASE WHEN i = ${row} THEN error('boom at ${row}') ELSE i END AS v FROM range(${rows}) t(i)`;

async function withConnection(t: { teardown: (f: () => void) => void }): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  t.teardown(() => {
    connection.closeSync();
    instance.closeSync();
  });
  return connection;
}

test('a read-only statement is run again and the engine\'s own error is what is reported', async (t) => {
  const connection = await withConnection(t);
  const reported = await engineErrorBehindInterrupt(INTERRUPTED, await connection.prepare(failingAt(3_000_000, 4_000_000)), new AbortController().signal);
  t.regex((reported as Error).message, /^Invalid Input Error: boom at 3000000/);
});

test('a second run that succeeds, a cancelled query, or a statement that writes: the engine error says what it kept', async (t) => {
  const connection = await withConnection(t);
  const signal = new AbortController().signal;
  const succeeds = await engineErrorBehindInterrupt(INTERRUPTED, await connection.prepare('SELECT i FROM range(100000) t(i)'), signal);
  t.regex((succeeds as Error).message, KEPT);
  t.is((succeeds as Error).cause, INTERRUPTED);

  const cancelled = new AbortController();
  cancelled.abort();
  t.regex((await engineErrorBehindInterrupt(INTERRUPTED, await connection.prepare(failingAt(10, 100)), cancelled.signal) as Error).message, KEPT);

  // An INSERT is never run twice: the table stays empty.
  await connection.run('CREATE TABLE t (v BIGINT)');
  const insert = await connection.prepare('INSERT INTO t SELECT i FROM range(10) t(i)');
  t.regex((await engineErrorBehindInterrupt(INTERRUPTED, insert, signal) as Error).message, KEPT);
  t.is((await connection.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjects()[0]!.n, 0n);
});

test('an error that is not an interrupt passes through untouched, without running anything', async (t) => {
  const connection = await withConnection(t);
  const other = new Error('Binder Error: nope');
  await connection.run('CREATE TABLE t (v BIGINT)');
  t.is(await engineErrorBehindInterrupt(other, await connection.prepare('INSERT INTO t VALUES (1)'), new AbortController().signal), other);
  t.is((await connection.runAndReadAll('SELECT count(*) AS n FROM t')).getRowObjects()[0]!.n, 0n);
});

async function streamInterruptedAfterFirstBatch(t: { teardown: (f: () => void) => void }, sql: string): Promise<{ failure: unknown; rows: number; released: boolean[] }> {
  const connection = await withConnection(t);
  const released: boolean[] = [];
  const stream = await streamResult({
    prepared: await connection.prepare(sql),
    connection,
    signal: new AbortController().signal,
    onFinish: (discard) => released.push(discard),
    mapError: (error) => new QuarryError('QUERY_FAILED', (error as Error).message, { cause: error }),
  });
  const iterator = stream.batches[Symbol.asyncIterator]();
  let rows = 0;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done) return { failure: undefined, rows, released };
      if (rows === 0) connection.interrupt();
      rows += next.value.numRows;
    }
  } catch (failure) {
    return { failure, rows, released };
  }
}

test('a streamed result interrupted by nothing the caller asked for fails with the engine\'s error found on a second run', async (t) => {
  const { failure, rows, released } = await streamInterruptedAfterFirstBatch(t, failingAt(5_000_000, 10_000_000));
  t.true(failure instanceof QuarryError);
  t.regex((failure as Error).message, /^Invalid Input Error: boom at 5000000/);
  t.true(rows < 5_000_000, `the first run stopped at the interrupt (${rows} rows read), not at its own failure`);
  t.deepEqual(released, [false], 'the connection went back to the pool once, after the second run');
});

test('when the second run succeeds, the streamed result still fails, with the engine error saying what it kept', async (t) => {
  const { failure, rows } = await streamInterruptedAfterFirstBatch(t, 'SELECT i FROM range(10000000) t(i)');
  t.true(failure instanceof QuarryError, `the stream ended as complete after ${rows} rows`);
  t.regex((failure as Error).message, KEPT);
});
