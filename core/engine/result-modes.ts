import { LRUCache } from 'lru-cache';
import type { ChunkCounters } from './arrow/record-batch-stream.js';

/** How the engine hands a statement's result over: chunk by chunk as it runs, or computed whole first. */
export type ResultMode = 'stream' | 'materialize';

/** A result of at most this many rows, in at most this many batches (~2.5 MiB each), may be computed whole before it is read. */
const MATERIALIZE_MAX_ROWS = 100_000;
const MATERIALIZE_MAX_BATCHES = 4;
/** A streamed result whose chunks held fewer rows than this on average was sparse. */
const SPARSE_CHUNK_ROWS = 256;
/** Too few chunks to be worth changing anything. */
const MIN_CHUNKS = 8;

/**
 * Remembers, per statement text, which results are better computed whole. A result that came in
 * at most one chunk (2,048 rows) has nothing to overlap: streamed, it costs three round trips to
 * the engine's threads (start, the chunk, the end), computed whole one, and its chunk is then
 * read where it is (record-batch-stream.ts) — ~40 µs less for a point query, ~90 µs for
 * `SELECT 1`, in process here. A streamed result
 * comes in DuckDB's chunks as the scan produces them: a selective filter yields a chunk of a
 * few rows per 2,048 scanned, and each chunk costs one round trip to the engine's threads
 * (~50 µs here), so 12,000 rows out of 1.3M took ~40 ms streamed against ~3.5 ms computed
 * whole (DuckDB then packs the rows into full chunks). Streaming stays the default: it bounds
 * memory and overlaps the engine with the encoder for large results. A text whose last streamed
 * result was small (rows and bytes) and sparse runs whole next time; one whose whole result grew
 * large streams again.
 */
export class ResultModes {
  readonly #materialize = new LRUCache<string, true>({ max: 4096 });

  modeFor(sql: string): ResultMode {
    return this.#materialize.has(sql) ? 'materialize' : 'stream';
  }

  /** After a result was read to its end in `mode`. */
  learn(sql: string, mode: ResultMode, seen: Readonly<ChunkCounters>): void {
    const small = seen.rows <= MATERIALIZE_MAX_ROWS && seen.batches <= MATERIALIZE_MAX_BATCHES;
    if (mode === 'materialize') {
      if (!small) this.#materialize.delete(sql);
      return;
    }
    const sparse = seen.chunks >= MIN_CHUNKS && seen.rows < seen.chunks * SPARSE_CHUNK_ROWS;
    if (small && (seen.chunks <= 1 || sparse)) this.#materialize.set(sql, true);
  }
}
