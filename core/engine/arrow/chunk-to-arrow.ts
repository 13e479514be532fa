/**
 * DuckDB data chunks → Arrow record batches.
 *
 * DuckDB hands out chunks of at most 2048 rows; Arrow consumers (IPC clients, encoders) do
 * better with fewer, larger batches. The assembler copies each chunk's columns straight
 * from DuckDB memory into growing Arrow buffers and cuts a batch once it reaches a row or
 * byte target. No JS value per row is ever created for the common types.
 */
import type { DuckDBDataChunk, DuckDBType } from '@duckdb/node-api';
import { makeData, RecordBatch, Struct, type Schema } from 'apache-arrow';
import type { ColumnAccumulator } from './accumulators/column-accumulator.js';
import { createAccumulator } from './accumulators/create-accumulator.js';
import { chunkRowCount, chunkVector } from './duckdb-vectors.js';
import { rowRange } from './row-selection.js';

export interface BatchSizeOptions {
  /** Cut a batch at this many rows (default 65,536). */
  readonly targetRowsPerBatch?: number;
  /** Cut a batch once its buffers hold about this many bytes (default 8 MiB). */
  readonly targetBytesPerBatch?: number;
}

export const DEFAULT_TARGET_ROWS_PER_BATCH = 65_536;
export const DEFAULT_TARGET_BYTES_PER_BATCH = 8 * 1024 * 1024;

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
  private readonly targetRows: number;
  private readonly targetBytes: number;
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
    this.columns = duckdbTypes.map((type, i) => createAccumulator(type, schema.fields[i]!.type));
    this.targetRows = Math.max(1, Math.floor(options.targetRowsPerBatch ?? DEFAULT_TARGET_ROWS_PER_BATCH));
    this.targetBytes = Math.max(1, options.targetBytesPerBatch ?? DEFAULT_TARGET_BYTES_PER_BATCH);
  }

  /** Rows appended but not yet emitted. */
  get pendingRows(): number {
    return this.rows;
  }

  /**
   * Copies a chunk in and returns the batches it completed (usually none or one). A chunk
   * that crosses the row target is split, so no batch exceeds `targetRowsPerBatch`.
   */
  append(chunk: DuckDBDataChunk): RecordBatch[] {
    const raw = chunk.chunk;
    const chunkRows = chunkRowCount(raw);
    const completed: RecordBatch[] = [];
    const vectors = this.columns.map((_, i) => chunkVector(raw, i));
    let start = 0;
    while (start < chunkRows) {
      const take = Math.min(chunkRows - start, this.targetRows - this.rows);
      const rows = rowRange(start, take);
      for (let i = 0; i < this.columns.length; i++) this.columns[i]!.append(vectors[i]!, chunkRows, rows);
      this.rows += take;
      start += take;
      if (this.rows >= this.targetRows || this.bufferedBytes() >= this.targetBytes) completed.push(this.emit());
    }
    return completed;
  }

  /** The partial batch of everything appended since the last emitted one, if any. */
  flush(): RecordBatch | null {
    return this.rows > 0 ? this.emit() : null;
  }

  private bufferedBytes(): number {
    let bytes = 0;
    for (const column of this.columns) bytes += column.byteLength;
    return bytes;
  }

  private emit(): RecordBatch {
    const length = this.rows;
    this.rows = 0;
    const children = this.columns.map((column) => column.finish());
    const data = makeData({ type: new Struct(this.schema.fields), length, nullCount: 0, children });
    return new RecordBatch(this.schema, data);
  }
}
