import type { RecordBatch, Schema } from 'apache-arrow';
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { QuarryError } from '../errors/quarry-error.js';
import { openBatchStream } from './arrow/index.js';
import type { ChunkCounters } from './arrow/record-batch-stream.js';
import type { ResultShapes } from './result-shapes.js';
import { engineErrorBehindInterrupt } from './interrupt-cause.js';

/** The engine's answer to one query: the Arrow schema up front, then batches as they are produced. */
export interface EngineStream {
  readonly schema: Schema;
  readonly batches: AsyncIterable<RecordBatch>;
  /** Milliseconds spent inside the engine so far (prepare excluded). */
  readonly executionMs: () => number;
}

/**
 * Runs a prepared statement as a stream. Aborting `signal` interrupts the engine; the
 * connection goes back to the pool when the stream ends, fails or is abandoned.
 */
export async function streamResult(options: {
  prepared: DuckDBPreparedStatement;
  connection: DuckDBConnection;
  signal: AbortSignal;
  onFinish: (discardConnection: boolean) => void;
  mapError: (error: unknown) => QuarryError;
  /** Computed whole before it is read (see ResultModes); streamed chunk by chunk otherwise. */
  materialize?: boolean;
  /** Whether the runtime interrupted every query (shutdown): an INTERRUPT is then a cancellation. */
  interruptedByRuntime?: () => boolean;
  /** Told the chunks and rows of a result read to its end. */
  onComplete?: (seen: ChunkCounters) => void;
  /** The longest string or blob of the result (runtime.query.max_value_size). */
  maxValueBytes?: number;
  /** The statement's result shape remembered from an earlier run, and where to remember it (see ResultShapes). */
  shapes?: ResultShapes;
}): Promise<EngineStream> {
  const { connection, signal } = options;
  let engineMs = 0;
  // DuckDB forgets an interrupt that lands before the query starts running on its thread (a
  // query clears the flag when it begins): while the statement is being started, the
  // interrupt is repeated until it answers, so an early cancel is never lost.
  let opening = true;
  const counters: ChunkCounters = { chunks: 0, rows: 0, batches: 0 };
  const onAbort = () => {
    connection.interrupt();
    const repeat = setInterval(() => (opening ? connection.interrupt() : clearInterval(repeat)), INTERRUPT_REPEAT_MS);
    repeat.unref();
  };
  if (signal.aborted) throw options.mapError(new Error('INTERRUPT Error: Interrupted!'));
  signal.addEventListener('abort', onAbort, { once: true });
  const started = performance.now();
  let opened: Awaited<ReturnType<typeof openBatchStream>>;
  try {
    const result = options.materialize ? await options.prepared.run() : await options.prepared.stream();
    const shape = options.shapes?.get(options.prepared);
    opened = await openBatchStream(result, { counters, maxValueBytes: options.maxValueBytes, ...(shape === undefined ? {} : { shape }) });
    if (shape === undefined) options.shapes?.remember(options.prepared, opened.shape);
  } catch (error) {
    const reported = signal.aborted || options.interruptedByRuntime?.() ? error : await engineErrorBehindInterrupt(error, options.prepared, signal);
    signal.removeEventListener('abort', onAbort);
    throw reported;
  } finally {
    opening = false;
  }
  engineMs += performance.now() - started;

  // An explicit iterator rather than a generator: `return()` must release the connection
  // even when the consumer gives up before reading the first batch.
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    signal.removeEventListener('abort', onAbort);
    options.onFinish(signal.aborted);
  };
  const source = opened.batches[Symbol.asyncIterator]();
  const iterator: AsyncIterator<RecordBatch> = {
    async next() {
      if (finished) return { done: true, value: undefined };
      const fetchStarted = performance.now();
      try {
        const next = await source.next();
        engineMs += performance.now() - fetchStarted;
        if (next.done) {
          finish();
          options.onComplete?.(counters);
        }
        return next;
      } catch (error) {
        // Asked before the connection goes back to the pool: the question may run the statement again on it.
        const reported = signal.aborted || options.interruptedByRuntime?.() ? error : await engineErrorBehindInterrupt(error, options.prepared, signal);
        finish();
        throw options.mapError(reported);
      }
    },
    async return() {
      // The fetch the pump has in flight settles first: the connection goes back to the pool
      // (or is closed, when interrupted) only once DuckDB is done with it.
      try {
        await source.return?.();
      } finally {
        finish();
      }
      return { done: true, value: undefined };
    },
  };
  let taken = false;
  const batches: AsyncIterable<RecordBatch> = {
    [Symbol.asyncIterator]() {
      if (taken) throw new Error('a query result can be read once');
      taken = true;
      return iterator;
    },
  };

  return { schema: opened.schema, batches, executionMs: () => engineMs };
}

/** How often a cancel is repeated while the statement is still being started. */
const INTERRUPT_REPEAT_MS = 50;
