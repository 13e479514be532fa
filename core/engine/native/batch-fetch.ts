import type { DuckDBResult } from '@duckdb/node-api';
import { loadDuckDBHelper, type DuckDBHelperAddon } from './native-addon.js';

/**
 * Reads a DuckDB result into Arrow batch buffers (native/duckdb-batch-fetch.c): a streamed one
 * on a worker thread, where the bindings' chunk-by-chunk fetch costs a thread round trip, a
 * finalized object and freshly faulted engine memory per 2,048 rows, most of the time a large
 * result took; a materialised one on the calling thread, where the bindings' JS-side reading
 * of each chunk's vectors was most of a small query's conversion. core/engine/arrow/native-batches.ts
 * turns what it hands back into RecordBatches.
 */

/** An opaque handle on one result's fetch (a Node-API external). */
export type NativeFetcher = { readonly __nativeFetcher: unique symbol };

/**
 * One batch as the helper hands it over: `[rows, chunks, ended, ...columns]`, four entries a
 * column: validity bitmap (null: no row is null), null count, values, offsets (strings only).
 */
export type NativeBatchEntries = [rows: number, chunks: number, ended: boolean, ...columns: Array<ArrayBuffer | number | null>];

interface BatchFetchAddon extends DuckDBHelperAddon {
  open(result: unknown, plan: Int32Array, targetRows: number, targetBytes: number, largeChunkBytes: number, maxValueBytes: number): NativeFetcher;
  next(fetcher: NativeFetcher): Promise<NativeBatchEntries | null>;
  nextNow(fetcher: NativeFetcher): NativeBatchEntries | null;
  release(fetcher: NativeFetcher): void;
}

/** The plan's column kinds (duckdb-batch-fetch.c's enum column_kind). */
export const NativeColumnKind = { fixed: 0, boolean: 1, widen: 2, string: 3 } as const;

export interface NativeFetchOptions {
  readonly targetRows: number;
  readonly targetBytes: number;
  readonly largeChunkBytes: number;
  readonly maxValueBytes: number;
}

let addon: BatchFetchAddon | undefined;

/** Loads the helper now (the engine calls it at start), so a missing build fails start-up rather than the first query. */
export function requireBatchFetch(): void {
  addon ??= loadAddon();
}

/** A fetcher over `result`, whose columns `plan` describes (three entries a column: kind, source width, target width). */
export function openNativeFetcher(result: DuckDBResult, plan: Int32Array, options: NativeFetchOptions): NativeFetcher {
  const maxValueBytes = Number.isFinite(options.maxValueBytes) ? options.maxValueBytes : Number.MAX_VALUE;
  return (addon ??= loadAddon()).open(bindingsResult(result), plan, options.targetRows, options.targetBytes, options.largeChunkBytes, maxValueBytes);
}

/** The next batch's buffers, or null once the result answered its last chunk. One fetch at a time. */
export function fetchNativeBatch(fetcher: NativeFetcher): Promise<NativeBatchEntries | null> {
  return (addon ??= loadAddon()).next(fetcher);
}

/**
 * The next batch built on this thread, for a materialised result only: its chunks are in
 * memory already, and a worker's round trip would cost more than the copy. A streamed result's
 * fetch runs the query, so it must go through `fetchNativeBatch`.
 */
export function fetchNativeBatchNow(fetcher: NativeFetcher): NativeBatchEntries | null {
  return (addon ??= loadAddon()).nextNow(fetcher);
}

/** Frees the chunk and buffers the fetcher holds (not while a fetch runs). */
export function releaseNativeFetcher(fetcher: NativeFetcher): void {
  (addon ??= loadAddon()).release(fetcher);
}

/** The @duckdb/node-bindings result external a node-api result wraps. */
function bindingsResult(result: DuckDBResult): unknown {
  return (result as unknown as { result: unknown }).result;
}

function loadAddon(): BatchFetchAddon {
  return loadDuckDBHelper<BatchFetchAddon>('duckdb_batch_fetch', 'it reads large results into Arrow');
}
