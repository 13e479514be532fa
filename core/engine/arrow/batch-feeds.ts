/**
 * Where a result's batches come from: the pieces BatchPump (record-batch-stream.ts) reads in
 * order and what turns each into batches.
 *
 * - a result whose every column the native helper converts: whole batches built by it
 *   (NativeFeed, native-batches.ts), on a worker thread for a streamed result, where each fetch
 *   runs the query, and on this thread for a materialised one, whose chunks are in memory;
 * - any other result: DuckDB chunks, read through the bindings and assembled into batches on
 *   the JS thread (ChunkFeed, BatchAssembler).
 */
import type { DuckDBResult, DuckDBType } from '@duckdb/node-api';
import type { RecordBatch, Schema } from 'apache-arrow';
import { BatchAssembler, LARGE_CHUNK_BYTES, targetBytesOf, targetRowsOf, valueTooLargeError, type BatchSizeOptions } from './chunk-to-arrow.js';
import { NativeBatchBuilder, nativePlanFor } from './native-batches.js';
import { ValueTooLarge } from './accumulators/value-too-large.js';
import { fetchNativeBatch, fetchNativeBatchNow, openNativeFetcher, releaseNativeFetcher, type NativeBatchEntries, type NativeFetcher } from '../native/batch-fetch.js';
import { throwIfResultFailed } from '../native/result-status.js';
import { DuckDBMaterializedResult } from '../duckdb-api.js';

export interface ChunkCounters {
  chunks: number;
  rows: number;
  /** Arrow batches made of them (each at most ~2.5 MiB, see BatchAssembler). */
  batches: number;
}

/** A result's column types and Arrow schema, as `openBatchStream` derived them. */
export interface ResultShape {
  readonly types: readonly DuckDBType[];
  readonly schema: Schema;
}

export interface BatchFeed<Piece = unknown> {
  /** The next piece, or null at the end of the result or once it failed (the result tells which). */
  next(): Promise<Piece | null>;
  countInto(piece: Piece, counters: ChunkCounters): void;
  /** The batches a piece completes (usually none or one). */
  batchesOf(piece: Piece): RecordBatch[];
  /** What is left once the result ended. */
  flush(): RecordBatch | null;
  /** After the result was read to its end in order. */
  completed(): void;
  /** After the feed is done with, in order or not, once no `next()` is in flight. */
  close(): void;
}

/** The feed for `result`: the native helper's for a result it can convert, else chunks. */
export function feedFor(result: DuckDBResult, schema: Schema, types: readonly DuckDBType[], options: BatchSizeOptions, shape: ResultShape | undefined): BatchFeed {
  const plan = planOf(schema, types, shape);
  if (plan !== null) return new NativeFeed(result, schema, plan, options);
  return new ChunkFeed(result, assemblerFor(schema, types, options, shape), shape);
}

/** The helper's plan of each kept shape (a statement's), so a repeated statement does not work it out again. */
const plans = new WeakMap<ResultShape, Int32Array | null>();

function planOf(schema: Schema, types: readonly DuckDBType[], shape: ResultShape | undefined): Int32Array | null {
  if (shape === undefined) return nativePlanFor(types, schema);
  let plan = plans.get(shape);
  if (plan === undefined) plans.set(shape, (plan = nativePlanFor(types, schema)));
  return plan;
}

type Chunk = NonNullable<Awaited<ReturnType<DuckDBResult['fetchChunk']>>>;

/**
 * A result read chunk by chunk. A streamed result's each cost a round trip to the engine's
 * threads (a thread-pool job: waking a worker, then waking the event loop), the bindings'
 * `fetchChunk` of a materialised one too, although its chunks are already in memory: those are
 * read where they are (`getChunk`, synchronous), ~40-90 µs less per small query here.
 */
class ChunkFeed implements BatchFeed<Chunk> {
  readonly #read: () => Promise<Chunk | null>;
  readonly #assembler: BatchAssembler;
  readonly #shape: ResultShape | undefined;

  constructor(result: DuckDBResult, assembler: BatchAssembler, shape: ResultShape | undefined) {
    this.#assembler = assembler;
    this.#shape = shape;
    if (result instanceof DuckDBMaterializedResult) {
      const count = result.chunkCount;
      let index = 0;
      this.#read = () => Promise.resolve(index < count ? nonEmpty(result.getChunk(index++)) : null);
    } else {
      this.#read = () => result.fetchChunk().then(nonEmpty);
    }
  }

  next(): Promise<Chunk | null> {
    return this.#read();
  }

  countInto(chunk: Chunk, counters: ChunkCounters): void {
    counters.chunks += 1;
    counters.rows += chunk.rowCount;
  }

  batchesOf(chunk: Chunk): RecordBatch[] {
    return this.#assembler.append(chunk);
  }

  flush(): RecordBatch | null {
    return this.#assembler.flush();
  }

  completed(): void {
    if (this.#shape !== undefined && this.#assembler.releaseForReuse()) spareAssemblers.set(this.#shape, this.#assembler);
  }

  close(): void {}
}

/** A null or empty chunk ends a result. */
function nonEmpty(chunk: Chunk | null): Chunk | null {
  return chunk === null || chunk.rowCount === 0 ? null : chunk;
}

/**
 * A result read a whole batch at a time by the native helper. A materialised result's batches
 * are built on this thread (nothing runs the query any more); for a point query that was ~90 µs
 * less JS than reading its chunk through the bindings into the assembler, in process here.
 */
class NativeFeed implements BatchFeed<NativeBatchEntries> {
  readonly #result: DuckDBResult;
  readonly #materialized: boolean;
  readonly #fetcher: NativeFetcher;
  readonly #builder: NativeBatchBuilder;
  readonly #schema: Schema;
  readonly #limit: number;
  /** The helper said the last batch was the last: no call is needed to learn the end. */
  #ended = false;

  constructor(result: DuckDBResult, schema: Schema, plan: Int32Array, options: BatchSizeOptions) {
    this.#result = result;
    this.#materialized = result instanceof DuckDBMaterializedResult;
    this.#schema = schema;
    this.#limit = options.maxValueBytes ?? Number.POSITIVE_INFINITY;
    this.#builder = new NativeBatchBuilder(schema);
    this.#fetcher = openNativeFetcher(result, plan, {
      targetRows: targetRowsOf(options),
      targetBytes: Math.ceil(targetBytesOf(options)),
      largeChunkBytes: LARGE_CHUNK_BYTES,
      maxValueBytes: this.#limit,
    });
  }

  next(): Promise<NativeBatchEntries | null> {
    if (this.#ended) return Promise.resolve(null);
    if (this.#materialized) {
      try {
        return Promise.resolve(this.#taken(fetchNativeBatchNow(this.#fetcher)));
      } catch (error) {
        return Promise.reject(this.#failed(error));
      }
    }
    return fetchNativeBatch(this.#fetcher).then(
      (entries) => this.#taken(entries),
      (error: unknown) => {
        throw this.#failed(error);
      },
    );
  }

  #taken(entries: NativeBatchEntries | null): NativeBatchEntries | null {
    if (entries === null || entries[2]) {
      this.#ended = true;
      // The last batch of a result that failed is not delivered, as BatchAssembler never
      // flushes the rows it holds when the null chunk turns out to be a failure: a query
      // failing inside its first batch fails before any batch, before a door answers.
      throwIfResultFailed(this.#result);
    }
    return entries;
  }

  #failed(error: unknown): unknown {
    this.#ended = true;
    return this.#named(error);
  }

  countInto(entries: NativeBatchEntries, counters: ChunkCounters): void {
    counters.chunks += entries[1];
    counters.rows += entries[0];
  }

  batchesOf(entries: NativeBatchEntries): RecordBatch[] {
    return [this.#builder.batchOf(entries)];
  }

  flush(): null {
    return null;
  }

  completed(): void {
    releaseNativeFetcher(this.#fetcher);
  }

  close(): void {
    releaseNativeFetcher(this.#fetcher);
  }

  /** The helper's value-too-large failure as the coded error naming the column. */
  #named(error: unknown): unknown {
    const failure = error as { code?: string; column?: number; bytes?: number };
    if (failure?.code !== 'QUARRY_VALUE_TOO_LARGE' || failure.column === undefined || failure.bytes === undefined) return error;
    return valueTooLargeError(this.#schema, failure.column, new ValueTooLarge(failure.bytes, -1, this.#limit));
  }
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

function assemblerFor(schema: Schema, types: readonly DuckDBType[], options: BatchSizeOptions, shape: ResultShape | undefined): BatchAssembler {
  const spare = shape === undefined ? undefined : spareAssemblers.get(shape);
  if (spare !== undefined && spare.schema === schema && spare.suits(options)) {
    spareAssemblers.delete(shape!);
    reusedAssemblers++;
    return spare;
  }
  return new BatchAssembler(schema, types, options);
}
