/**
 * Which rows of a DuckDB vector an accumulator appends.
 *
 * Almost always a contiguous range (a whole chunk, the part of a chunk that still fits a
 * batch, or the child rows of contiguous lists). `indexes` is the rare gather case: list
 * entries that are not laid out back to back in the child vector, which Arrow's
 * monotonic offsets cannot express without copying the referenced rows in order.
 */
export interface RowSelection {
  /** First row of the range; unused when `indexes` is set. */
  readonly start: number;
  /** Number of rows appended. */
  readonly count: number;
  /** When set, rows `indexes[0..count)` in that order instead of the range. */
  readonly indexes: Uint32Array | null;
}

export function rowRange(start: number, count: number): RowSelection {
  return { start, count, indexes: null };
}

export function rowIndexes(indexes: Uint32Array): RowSelection {
  return { start: 0, count: indexes.length, indexes };
}

/** Source row of the i-th selected row. */
export function sourceRow(rows: RowSelection, i: number): number {
  return rows.indexes === null ? rows.start + i : rows.indexes[i]!;
}
