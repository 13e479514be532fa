import type { RawVector } from '../arrow/duckdb-vectors.js';
import { loadDuckDBHelper, type DuckDBHelperAddon } from './native-addon.js';

/**
 * Copies a DuckDB VARCHAR/BLOB vector's strings into Arrow buffers in one native call
 * (native/duckdb-string-vector.c): from JavaScript, reading a string that does not fit
 * DuckDB's 12 inline bytes takes a native call of its own, and the per-string loop was most of
 * the time a text column took to become Arrow.
 */
interface StringVectorAddon extends DuckDBHelperAddon {
  copy(vector: RawVector, vectorLength: number, start: number, count: number, indexes: Uint32Array | null, out: Uint8Array, position: number, offsets: Int32Array, offsetIndex: number): number;
  measure(vector: RawVector, vectorLength: number, start: number, count: number, indexes: Uint32Array | null, maxValueBytes: number, sizes: Float64Array | null): number;
}

let addon: StringVectorAddon | undefined;

/** Loads the helper now (the engine calls it at start), so a missing build fails start-up rather than the first query. */
export function requireStringVector(): void {
  addon ??= loadAddon();
}

/**
 * Appends the selected rows' bytes to `out` from `position` (valid rows only) and writes, for
 * the i-th selected row, the position after it to `offsets[offsetIndex + i]`. Returns the
 * position after the last string. `out` must have room for them (the caller summed their
 * lengths); the helper checks every index and write and throws rather than overrun.
 */
export function copyStrings(vector: RawVector, vectorLength: number, rows: { start: number; count: number; indexes: Uint32Array | null }, out: Uint8Array, position: number, offsets: Int32Array, offsetIndex: number): number {
  return (addon ??= loadAddon()).copy(vector, vectorLength, rows.start, rows.count, rows.indexes, out, position, offsets, offsetIndex);
}

/**
 * The bytes of the selected valid rows' strings, each row's length also added to `sizes[i]`
 * when given; or, when a string is longer than `maxValueBytes`, `-(row + 1)` for the vector row
 * of the first one.
 */
export function measureStrings(vector: RawVector, vectorLength: number, rows: { start: number; count: number; indexes: Uint32Array | null }, maxValueBytes: number, sizes: Float64Array | null): number {
  return (addon ??= loadAddon()).measure(vector, vectorLength, rows.start, rows.count, rows.indexes, maxValueBytes, sizes);
}

function loadAddon(): StringVectorAddon {
  return loadDuckDBHelper<StringVectorAddon>('duckdb_string_vector', 'it copies text and blob columns into Arrow');
}
