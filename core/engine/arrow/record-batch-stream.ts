import type { DuckDBResult } from '@duckdb/node-api';
import type { RecordBatch, Schema } from 'apache-arrow';
import type { BatchSizeOptions } from './chunk-to-arrow.js';
import { arrowSchemaForColumns } from './duckdb-to-arrow-type.js';
import { feedFor, type BatchFeed, type ChunkCounters, type ResultShape } from './batch-feeds.js';
import { throwIfResultFailed } from '../native/result-status.js';

export { assemblerReuses, type ChunkCounters, type ResultShape } from './batch-feeds.js';

/** A query result as Arrow: the schema up front, then the batches as they are produced. */
export interface ArrowBatchStream {
  readonly schema: Schema;
  /** Readable once. Breaking out of the loop stops fetching from DuckDB. */
  readonly batches: AsyncIterable<RecordBatch>;
}

export interface StreamOptions extends BatchSizeOptions {
  /** Stops fetching when aborted; the iteration then throws the signal's reason. */
  readonly signal?: AbortSignal;
  /** Counts the engine's chunks and their rows as they are fetched (how sparse a result streams). */
  readonly counters?: ChunkCounters;
}

/** The Arrow schema of a DuckDB result (column names as DuckDB gives them, even if repeated). */
export function arrowSchemaFor(result: DuckDBResult): Schema {
  return arrowSchemaForColumns(result.columnNames(), result.columnTypes());
}

/**
 * Streams a DuckDB result (`connection.stream(sql)`, `prepared.stream()`, or a
 * materialised `run()` result) as Arrow record batches.
 *
 * The schema is available at once; fetching starts with the first `next()`. Errors raised
 * by DuckDB while fetching (most runtime errors of a streaming query) surface from the
 * iteration. See `openBatchStream` to surface a first-chunk error before answering.
 */
export function streamRecordBatches(result: DuckDBResult, options: StreamOptions = {}): ArrowBatchStream {
  // The column types are asked of the result once: each ask builds a type object per column.
  const types = result.columnTypes();
  const schema = arrowSchemaForColumns(result.columnNames(), types);
  return { schema, batches: batchesOf(result, feedFor(result, schema, types, options, undefined), options, null) };
}

/**
 * Like `streamRecordBatches`, but reads the first piece (a chunk, or a whole batch from the
 * native helper) before resolving, so a query that fails immediately rejects here, before a
 * caller has committed to a response status.
 */
export async function openBatchStream(result: DuckDBResult, options: StreamOptions & { readonly shape?: ResultShape } = {}): Promise<ArrowBatchStream & { readonly shape: ResultShape }> {
  // A shape known from an earlier run of the same statement skips asking the bindings for every
  // column's type and building the schema again (~0.1 ms a query); its column count is checked.
  const known = options.shape !== undefined && options.shape.types.length === result.columnCount ? options.shape : undefined;
  const types = known?.types ?? result.columnTypes();
  const schema = known?.schema ?? arrowSchemaForColumns(result.columnNames(), types);
  options.signal?.throwIfAborted();
  const shape = known ?? { types, schema };
  const feed = feedFor(result, schema, types, options, shape);
  let first: unknown;
  try {
    first = await feed.next();
    if (first === null) throwIfResultFailed(result);
  } catch (error) {
    feed.close();
    throw error;
  }
  if (options.counters && first !== null) feed.countInto(first, options.counters);
  return { schema, shape, batches: batchesOf(result, feed, options, { first }) };
}

/** Batches converted ahead of the consumer, at most (the one being assembled comes on top): enough to overlap, little memory. */
const MAX_QUEUED_BATCHES = 1;

function batchesOf(result: DuckDBResult, feed: BatchFeed, options: StreamOptions, start: { readonly first: unknown } | null): AsyncIterable<RecordBatch> {
  let taken = false;
  return {
    [Symbol.asyncIterator]() {
      if (taken) throw new Error('the batches of a result can be read once');
      taken = true;
      return new BatchPump(result, feed, options, start);
    },
  };
}

/**
 * Fetches and converts a result's pieces (chunks, or whole batches from the native helper:
 * batch-feeds.ts) ahead of the consumer. DuckDB runs the query on its own threads, and every
 * piece costs a round trip to them; fetching only when the consumer asks would leave DuckDB
 * idle while the consumer encodes and writes (JSON rendering, Flight framing, socket
 * back-pressure). The pump instead keeps one fetch in flight at all times and converts each
 * piece as it arrives, whenever the thread is free, until MAX_QUEUED_BATCHES batches wait:
 * bounded memory, and no fetch beyond it.
 *
 * Only one fetch is ever in flight: two concurrent fetches of one result could complete
 * out of order. Errors and the end of the result reach the consumer after the batches
 * queued before them; an aborted signal or `return()` stops the pump at once, and
 * `return()` resolves only once the fetch in flight has settled, so the caller may hand the
 * connection to the next query.
 */
class BatchPump implements AsyncIterator<RecordBatch> {
  readonly #queue: RecordBatch[] = [];
  readonly #result: DuckDBResult;
  readonly #feed: BatchFeed;
  readonly #signal: AbortSignal | undefined;
  readonly #counters: ChunkCounters | undefined;
  readonly #finished: Promise<void>;
  #ended = false;
  #stopped = false;
  #failure: { error: unknown } | null = null;
  /** Wakes the consumer waiting for a batch, the end or a failure. */
  #consumerWaiting: (() => void) | null = null;
  /** Wakes the pump waiting for room in the queue (or for `return()`). */
  #pumpWaiting: (() => void) | null = null;

  constructor(result: DuckDBResult, feed: BatchFeed, options: StreamOptions, start: { readonly first: unknown } | null) {
    this.#result = result;
    this.#feed = feed;
    this.#signal = options.signal;
    this.#counters = options.counters;
    this.#finished = this.#run(start === null ? null : Promise.resolve(start.first));
  }

  async #run(first: Promise<unknown> | null): Promise<void> {
    let inFlight: Promise<unknown> | null = null;
    const feed = this.#feed;
    let completed = false;
    try {
      this.#signal?.throwIfAborted();
      // A first piece read by openBatchStream was counted there already.
      let countThis = first === null;
      inFlight = first ?? feed.next();
      inFlight.catch(() => undefined);
      for (;;) {
        const piece = await inFlight;
        inFlight = null;
        if (this.#stopped) return;
        this.#signal?.throwIfAborted();
        // No more pieces: the result ended, or the query failed (only the result knows).
        if (piece === null) {
          throwIfResultFailed(this.#result);
          break;
        }
        if (countThis && this.#counters) feed.countInto(piece, this.#counters);
        countThis = true;
        // The next piece is on its way while this one is converted. It may fail while the
        // pump waits for room, before anything awaits it: mark it handled now (the failure
        // still reaches the `await` above).
        inFlight = feed.next();
        inFlight.catch(() => undefined);
        for (const batch of feed.batchesOf(piece)) this.#push(batch);
        while (this.#queue.length >= MAX_QUEUED_BATCHES && !this.#stopped) {
          await new Promise<void>((resolve) => (this.#pumpWaiting = resolve));
        }
        if (this.#stopped) return;
      }
      const tail = feed.flush();
      if (tail !== null) this.#push(tail);
      completed = true;
    } catch (error) {
      this.#failure = { error };
    } finally {
      // A fetch still in flight (when stopped early) must settle before the connection is
      // reused; its outcome, e.g. an interrupt, is of no interest any more.
      if (inFlight !== null) await inFlight.catch(() => undefined);
      if (completed) feed.completed();
      else feed.close();
      this.#ended = true;
      this.#wakeConsumer();
    }
  }

  #push(batch: RecordBatch): void {
    if (this.#counters) this.#counters.batches += 1;
    this.#queue.push(batch);
    this.#wakeConsumer();
  }

  #wakeConsumer(): void {
    const wake = this.#consumerWaiting;
    this.#consumerWaiting = null;
    wake?.();
  }

  #wakePump(): void {
    const wake = this.#pumpWaiting;
    this.#pumpWaiting = null;
    wake?.();
  }

  async next(): Promise<IteratorResult<RecordBatch, undefined>> {
    for (;;) {
      if (this.#stopped) return { done: true, value: undefined };
      if (this.#signal?.aborted) {
        await this.return();
        throw this.#signal.reason;
      }
      const batch = this.#queue.shift();
      if (batch !== undefined) {
        this.#wakePump();
        return { done: false, value: batch };
      }
      if (this.#failure !== null) {
        this.#stopped = true;
        throw this.#failure.error;
      }
      if (this.#ended) return { done: true, value: undefined };
      await new Promise<void>((resolve) => (this.#consumerWaiting = resolve));
    }
  }

  async return(): Promise<IteratorResult<RecordBatch, undefined>> {
    this.#stopped = true;
    this.#queue.length = 0;
    this.#wakePump();
    await this.#finished;
    return { done: true, value: undefined };
  }
}
