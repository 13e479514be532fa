import type { Data, DataType } from 'apache-arrow';
import type { RawVector } from '../duckdb-vectors.js';
import type { RowSelection } from '../row-selection.js';

/**
 * Collects the rows of one column across DuckDB chunks until a batch is cut.
 *
 * `append` copies everything it needs out of DuckDB memory before returning: the chunk
 * may be freed as soon as the assembler moves on. `finish` returns Arrow `Data` owning
 * fresh buffers and leaves the accumulator empty for the next batch.
 */
export interface ColumnAccumulator {
  readonly type: DataType;
  /** Rows appended since the last `finish`. */
  readonly length: number;
  /** Approximate bytes held, for cutting batches by size. */
  readonly byteLength: number;
  /**
   * Appends `rows` of a flat DuckDB vector holding `vectorLength` rows (the bound for
   * reading its memory).
   */
  append(vector: RawVector, vectorLength: number, rows: RowSelection): void;
  /**
   * Adds each row's variable-width bytes to `sizes[row]` (columns whose rows can be large
   * only), so the assembler can cut a chunk of huge values into several batches. Throws
   * ValueTooLarge for a value above the result's limit, before anything is copied.
   */
  addRowSizes?(vector: RawVector, vectorLength: number, sizes: Float64Array): void;
  finish(): Data;
}
