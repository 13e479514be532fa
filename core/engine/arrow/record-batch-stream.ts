import type { DuckDBResult, DuckDBType } from '@duckdb/node-api';
import type { RecordBatch, Schema } from 'apache-arrow';
import { BatchAssembler, type BatchSizeOptions } from './chunk-to-arrow.js';
import { arrowSchemaForColumns } from './duckdb-to-arrow-type.js';
import { throwIfResultFailed } from '../native/result-status.js';
import { DuckDBMaterializedResult } from '../duckdb-api.js';

/** A query result as Arrow: the schema up front, then the batches as they are produced. */
export interface ArrowBatchStream {
  readonly schema: Schema;
  /** Readable once. Breaking out of the loop stops fetching from DuckDB. */
  readonly batches: AsyncIterable<RecordBatch>;
}

/** A result's column types and Arrow schema, as `openBatchStream` derived them. */
export interface ResultShape {
  readonly types: readonly DuckDBType[];
  readonly schema: Schema;
}

export interface StreamOptions extends BatchSizeOptions {
  /** Stops fetching when aborted; the iteration then throws the signal's reason. */
  readonly signal?: AbortSignal;
  /** Counts the engine's chunks and their rows as they are fetched (how sparse a result streams). */
  readonly counters?: ChunkCounters;
}

export interface ChunkCounters {
  chunks: number;
  rows: number;
  /** Arrow batches made of them (each at most ~2.5 MiB, see BatchAssembler). */
  batches: number;
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
  return { schema, batches: batchesOf(result, schema, types, options, { nextChunk: chunkSource(result) }) };
}

/**
 * Like `streamRecordBatches`, but fetches the first chunk before resolving, so a query
 * that fails immediately rejects here, before a caller has committed to a response status.
 */
export async function openBatchStream(result: DuckDBResult, options: StreamOptions & { readonly shape?: ResultShape } = {}): Promise<ArrowBatchStream & { readonly shape: ResultShape }> {
  // A shape known from an earlier run of the same statement skips asking the bindings for every
  // column's type and building the schema again (~0.1 ms a query); its column count is checked.
  const known = options.shape !== undefined && options.shape.types.length === result.columnCount ? options.shape : undefined;
  const types = known?.types ?? result.columnTypes();
  const schema = known?.schema ?? arrowSchemaForColumns(result.columnNames(), types);
  options.signal?.throwIfAborted();
  const nextChunk = chunkSource(result);
  const first = await nextChunk();
  if (first === null || first.rowCount === 0) throwIfResultFailed(result);
  if (options.counters && first !== null && first.rowCount > 0) {
    options.counters.chunks += 1;
    options.counters.rows += first.rowCount;
  }
  const shape = known ?? { types, schema };
  return { schema, shape, batches: batchesOf(result, schema, types, options, { nextChunk, first, shape }) };
}

/**
 * The assembler of the last result of a shape that ended in order, for the next run of its
 * statement: making one (an accumulator and its buffers per column) was ~40 µs of a ~1 ms point
 * query's JS here. A shape belongs to one kept statement, which runs one result at a time; one
 * taken is removed, so two results never share one.
 */
const spareAssemblers = new WeakMap<ResultShape, BatchAssembler>();
let reusedAssemblers = 0;

/** How many results were assembled by a kept assembler (tests see the reuse happen). */
export function assemblerReuses(): number {
  return reusedAssemblers;
}

function assemblerFor(schema: Schema, types: readonly DuckDBType[], options: StreamOptions, shape: ResultShape | undefined): BatchAssembler {
  const spare = shape === undefined ? undefined : spareAssemblers.get(shape);
  if (spare !== undefined && spare.schema === schema && spare.suits(options)) {
    spareAssemblers.delete(shape!);
    reusedAssemblers++;
    return spare;
  }
  return new BatchAssembler(schema, types, options);
}

type Chunk = Awaited<ReturnType<DuckDBResult['fetchChunk']>>;

/**
 * Reads a result's chunks in order. A streamed result's each cost a round trip to the engine's
 * threads (a thread-pool job: waking a worker, then waking the event loop), the bindings'
 * `fetchChunk` of a materialised one too, although its chunks are already in memory: those are
 * read where they are (`getChunk`, synchronous), ~40-90 µs less per small query here.
 */
function chunkSource(result: DuckDBResult): () => Promise<Chunk> {
  if (!(result instanceof DuckDBMaterializedResult)) return () => result.fetchChunk();
  const count = result.chunkCount;
  let index = 0;
  return () => Promise.resolve(index < count ? result.getChunk(index++) : null);
}

/** Batches converted ahead of the consumer, at most (the one being assembled comes on top): enough to overlap, little memory. */
const MAX_QUEUED_BATCHES = 1;

/** Where a result's chunks come from: the reader (see chunkSource), and the first chunk when it was read already. */
interface ChunkStart {
  readonly nextChunk: () => Promise<Chunk>;
  readonly first?: Chunk;
  /** The result's shape, whose assembler is kept for its next run once this one ends in order. */
  readonly shape?: ResultShape;
}

function batchesOf(result: DuckDBResult, schema: Schema, types: readonly DuckDBType[], options: StreamOptions, start: ChunkStart): AsyncIterable<RecordBatch> {
  let taken = false;
  return {
    [Symbol.asyncIterator]() {
      if (taken) throw new Error('the batches of a result can be read once');
      taken = true;
      return new BatchPump(result, assemblerFor(schema, types, options, start.shape), options, start);
    },
  };
}

/**
 * Fetches and converts chunks ahead of the consumer. DuckDB runs the query on its own
 * threads, and every chunk costs a round trip to them; converting only when the consumer
 * asks would leave DuckDB idle while the consumer encodes and writes (JSON rendering,
 * Flight framing, socket back-pressure). The pump instead keeps one fetch in flight at all
 * times and converts each chunk as it arrives, whenever the thread is free, until
 * MAX_QUEUED_BATCHES batches wait: bounded memory, and no fetch beyond it.
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
  readonly #assembler: BatchAssembler;
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

  readonly #nextChunk: () => Promise<Chunk>;
  readonly #shape: ResultShape | undefined;

  constructor(result: DuckDBResult, assembler: BatchAssembler, options: StreamOptions, start: ChunkStart) {
    this.#result = result;
    this.#assembler = assembler;
    this.#shape = start.shape;
    this.#signal = options.signal;
    this.#counters = options.counters;
    this.#nextChunk = start.nextChunk;
    this.#finished = this.#run('first' in start ? Promise.resolve(start.first ?? null) : null);
  }

  async #run(first: Promise<Chunk> | null): Promise<void> {
    let inFlight: Promise<Chunk> | null = null;
    try {
      this.#signal?.throwIfAborted();
      // A prefetched first chunk was counted by openBatchStream already.
      let countThis = first === null;
      inFlight = first ?? this.#nextChunk();
      inFlight.catch(() => undefined);
      for (;;) {
        const chunk: Chunk = await inFlight;
        inFlight = null;
        if (this.#stopped) return;
        this.#signal?.throwIfAborted();
        // A null (or empty) chunk ends the result, or the query failed: only the result knows.
        if (chunk === null || chunk.rowCount === 0) {
          throwIfResultFailed(this.#result);
          break;
        }
        if (countThis && this.#counters) {
          this.#counters.chunks += 1;
          this.#counters.rows += chunk.rowCount;
        }
        countThis = true;
        // The next chunk is on its way while this one is converted. It may fail while the
        // pump waits for room, before anything awaits it: mark it handled now (the failure
        // still reaches the `await` above).
        inFlight = this.#nextChunk();
        inFlight.catch(() => undefined);
        for (const batch of this.#assembler.append(chunk)) this.#push(batch);
        while (this.#queue.length >= MAX_QUEUED_BATCHES && !this.#stopped) {
          await new Promise<void>((resolve) => (this.#pumpWaiting = resolve));
        }
        if (this.#stopped) return;
      }
      const tail = this.#assembler.flush();
      if (tail !== null) this.#push(tail);
      if (this.#shape !== undefined && this.#assembler.releaseForReuse()) spareAssemblers.set(this.#shape, this.#assembler);
    } catch (error) {
      this.#failure = { error };
    } finally {
      // A fetch still in flight (when stopped early) must settle before the connection is
      // reused; its outcome, e.g. an interrupt, is of no interest any more.
      if (inFlight !== null) await inFlight.catch(() => undefined);
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
