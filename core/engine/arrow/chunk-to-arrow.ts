/**
 * DuckDB data chunks → Arrow record batches.
 *
 * DuckDB hands out chunks of at most 2048 rows; Arrow consumers (IPC clients, encoders) do
 * better with fewer, larger batches. The assembler copies each chunk's columns straight
 * from DuckDB memory into growing Arrow buffers and cuts a batch once it reaches a row or
 * byte target. No JS value per row is ever created for the common types.
 */
import type { DuckDBDataChunk, DuckDBType } from '@duckdb/node-api';
import { makeData, Struct, type RecordBatch, type Schema } from 'apache-arrow';
import { recordBatchOf } from './record-batch-of.js';
import type { ColumnAccumulator } from './accumulators/column-accumulator.js';
import { createAccumulator } from './accumulators/create-accumulator.js';
import { ValueTooLarge } from './accumulators/value-too-large.js';
import { chunkRowCount, chunkVector, type RawVector } from './duckdb-vectors.js';
import { rowRange } from './row-selection.js';
import { QuarryError } from '../../errors/quarry-error.js';

export interface BatchSizeOptions {
  /** Cut a batch at this many rows (default 65,536). */
  readonly targetRowsPerBatch?: number;
  /**
   * Keep a batch's buffers under about this many bytes (default 2.5 MiB): a chunk that would
   * take the batch past it starts the next batch instead. Only a single chunk bigger than
   * the target makes a bigger batch.
   */
  readonly targetBytesPerBatch?: number;
  /** The longest string or blob a result may carry (runtime.query.max_value_size for user queries; no limit when unset); longer is RESULT_VALUE_TOO_LARGE. */
  readonly maxValueBytes?: number;
}

/**
 * A chunk whose strings and blobs hold more than this is cut into batches of about this
 * size (one row at least), so the runtime never holds one huge chunk's values twice over.
 * Below it chunks are never cut by bytes (the usual case keeps its batch shapes).
 */
export const LARGE_CHUNK_BYTES = 16 * 1024 * 1024;

export const DEFAULT_TARGET_ROWS_PER_BATCH = 65_536;
/**
 * Large enough that per-batch costs (IPC headers, Flight messages, encoder setup) vanish,
 * small enough that a batch lives briefly: buffers that outlive a young-generation garbage
 * collection are only reclaimed by full collections, which V8 then runs back to back under
 * a sustained stream (see docs/json-encoding.md, "Performance design"). It also keeps each
 * batch well inside the 4 MiB message limit gRPC clients start with, so Flight never has to
 * re-encode slices of it.
 */
export const DEFAULT_TARGET_BYTES_PER_BATCH = 2.5 * 1024 * 1024;

/**
 * Accumulates DuckDB chunks of one result into Arrow record batches of `schema`.
 *
 * ```ts
 * const assembler = new BatchAssembler(schema, result.columnTypes());
 * for (const batch of assembler.append(chunk)) yield batch;   // per chunk
 * const tail = assembler.flush(); if (tail) yield tail;        // at the end
 * ```
 * Batches own their buffers; the chunk can be released as soon as `append` returns.
 */
export class BatchAssembler {
  readonly schema: Schema;
  private readonly columns: ColumnAccumulator[];
  /** The current chunk's vectors, one per column (reused across chunks). */
  private readonly vectors: RawVector[];
  private readonly targetRows: number;
  private readonly targetBytes: number;
  private readonly maxValueBytes: number | undefined;
  /** The batches' type, made once: every batch of the result has it. */
  private readonly structType: Struct;
  /** Bytes of the largest batch emitted: what its accumulators' buffers grew to hold, about. */
  private largestBatchBytes = 0;
  /** Columns whose rows can be large (strings, blobs), by index. */
  private readonly sizedColumns: number[];
  /** Variable-width bytes of each row of the current chunk (reused; sized by the largest chunk so far, at most 2,048 rows). */
  private rowSizes = new Float64Array(0);
  private rows = 0;

  /**
   * @param schema the result's Arrow schema, from `arrowSchemaForColumns` over the same types.
   * @param duckdbTypes the result's column types (`result.columnTypes()`).
   */
  constructor(schema: Schema, duckdbTypes: readonly DuckDBType[], options: BatchSizeOptions = {}) {
    if (schema.fields.length !== duckdbTypes.length) {
      throw new Error(`schema has ${schema.fields.length} fields but the result has ${duckdbTypes.length} columns`);
    }
    this.schema = schema;
    this.columns = duckdbTypes.map((type, i) => createAccumulator(type, schema.fields[i]!.type, options.maxValueBytes));
    this.sizedColumns = this.columns.flatMap((column, i) => (column.addRowSizes ? [i] : []));
    this.vectors = new Array<RawVector>(this.columns.length);
    this.targetRows = targetRowsOf(options);
    this.targetBytes = targetBytesOf(options);
    this.maxValueBytes = options.maxValueBytes;
    this.structType = new Struct(schema.fields);
  }

  /** Whether this assembler cuts and checks batches as `options` ask (so it may serve another result of its schema). */
  suits(options: BatchSizeOptions): boolean {
    return (
      this.targetRows === targetRowsOf(options) &&
      this.targetBytes === targetBytesOf(options) &&
      this.maxValueBytes === options.maxValueBytes
    );
  }

  /**
   * After `flush`, forgets the last chunk's vectors, so a kept assembler pins no engine memory;
   * true when it is empty and small (its buffers grew for batches of at most
   * REUSABLE_BATCH_BYTES: a large result's would hold megabytes per column while kept), so it
   * may assemble another result of its schema.
   */
  releaseForReuse(): boolean {
    this.vectors.fill(undefined as unknown as RawVector);
    return this.largestBatchBytes <= REUSABLE_BATCH_BYTES && this.rows === 0 && this.columns.every((column) => column.length === 0);
  }

  /** Rows appended but not yet emitted. */
  get pendingRows(): number {
    return this.rows;
  }

  /**
   * Copies a chunk in and returns the batches it completed (usually none or one). A chunk
   * that crosses the row target is split, so no batch exceeds `targetRowsPerBatch`; a
   * chunk that would cross the byte target (judged by the batch's bytes per row so far)
   * goes into the next batch.
   */
  append(chunk: DuckDBDataChunk): RecordBatch[] {
    const raw = chunk.chunk;
    const chunkRows = chunkRowCount(raw);
    const completed: RecordBatch[] = [];
    if (chunkRows === 0) return completed;
    const columns = this.columns;
    const vectors = this.vectors;
    for (let i = 0; i < columns.length; i++) vectors[i] = chunkVector(raw, i);
    const sizes = this.measureRows(chunkRows);
    if (this.rows > 0) {
      const bytes = this.bufferedBytes();
      if (bytes + (bytes / this.rows) * Math.min(chunkRows, this.targetRows - this.rows) > this.targetBytes) completed.push(this.emit());
    }
    let start = 0;
    while (start < chunkRows) {
      let take = Math.min(chunkRows - start, this.targetRows - this.rows);
      if (sizes !== null) take = rowsWithin(sizes, start, take, LARGE_CHUNK_BYTES - this.bufferedBytes());
      const rows = rowRange(start, take);
      for (let i = 0; i < columns.length; i++) this.appendColumn(i, vectors[i]!, chunkRows, rows);
      this.rows += take;
      start += take;
      if (this.rows >= this.targetRows || this.bufferedBytes() >= this.targetBytes || (sizes !== null && start < chunkRows)) completed.push(this.emit());
    }
    return completed;
  }

  /**
   * The chunk's per-row variable-width bytes when they add up to more than LARGE_CHUNK_BYTES
   * (the chunk is then cut by them), else null. Checks every value against the limit first.
   */
  private measureRows(chunkRows: number): Float64Array | null {
    if (this.sizedColumns.length === 0) return null;
    if (this.rowSizes.length < chunkRows) this.rowSizes = new Float64Array(chunkRows);
    const sizes = this.rowSizes.fill(0, 0, chunkRows);
    for (const index of this.sizedColumns) {
      try {
        this.columns[index]!.addRowSizes!(this.vectors[index]!, chunkRows, sizes);
      } catch (error) {
        throw this.columnError(index, error);
      }
    }
    let total = 0;
    for (let row = 0; row < chunkRows; row++) total += sizes[row]!;
    return total > LARGE_CHUNK_BYTES ? sizes : null;
  }

  private appendColumn(index: number, vector: RawVector, chunkRows: number, rows: ReturnType<typeof rowRange>): void {
    try {
      this.columns[index]!.append(vector, chunkRows, rows);
    } catch (error) {
      throw this.columnError(index, error);
    }
  }

  /** A value over the limit as the coded error naming its column; other failures unchanged. */
  private columnError(index: number, error: unknown): unknown {
    return error instanceof ValueTooLarge ? valueTooLargeError(this.schema, index, error) : error;
  }

  /** The partial batch of everything appended since the last emitted one, if any. */
  flush(): RecordBatch | null {
    return this.rows > 0 ? this.emit() : null;
  }

  /** Bytes the batch's buffers would take now: values plus a validity bitmap and padding allowance per column. */
  private bufferedBytes(): number {
    let bytes = 0;
    for (const column of this.columns) bytes += column.byteLength;
    return bytes + this.columns.length * (((this.rows + 7) >> 3) + 64);
  }

  private emit(): RecordBatch {
    this.largestBatchBytes = Math.max(this.largestBatchBytes, this.bufferedBytes());
    const length = this.rows;
    this.rows = 0;
    const children = this.columns.map((column) => column.finish());
    const data = makeData({ type: this.structType, length, nullCount: 0, children });
    return recordBatchOf(this.schema, data);
  }
}

export const targetRowsOf = (options: BatchSizeOptions) => Math.max(1, Math.floor(options.targetRowsPerBatch ?? DEFAULT_TARGET_ROWS_PER_BATCH));
export const targetBytesOf = (options: BatchSizeOptions) => Math.max(1, options.targetBytesPerBatch ?? DEFAULT_TARGET_BYTES_PER_BATCH);

/** A value of column `index` over the result's limit, as the coded error naming the column. */
export function valueTooLargeError(schema: Schema, index: number, error: ValueTooLarge): QuarryError {
  const column = schema.fields[index]!.name;
  return new QuarryError(
    'RESULT_VALUE_TOO_LARGE',
    `column "${column}" has a value of ${error.bytes} bytes; a result value may be at most ${error.limit} bytes (runtime.query.max_value_size). Select part of it (substr, left) or raise the limit`,
    { details: { column, bytes: error.bytes, limit: error.limit } },
  );
}

/** The largest batch (bytes) an assembler may have made and still be kept for another result. */
const REUSABLE_BATCH_BYTES = 256 * 1024;

/** How many rows from `start` (at most `most`, at least one) fit in `room` bytes of `sizes`. */
function rowsWithin(sizes: Float64Array, start: number, most: number, room: number): number {
  let take = 0;
  while (take < most) {
    room -= sizes[start + take]!;
    if (room < 0 && take > 0) break;
    take++;
  }
  return take;
}
