import type { Data } from 'apache-arrow';
import type { ByteWriter } from './byte-writer.js';

/**
 * The two text dialects. JSON: strings quoted and escaped, NULL is `null`, temporal values
 * are quoted strings, NaN/±Infinity become `null`. CSV: fields quoted only when needed,
 * NULL is an empty field, NaN/±Infinity are written as `NaN`, `Infinity`, `-Infinity`.
 */
export type Dialect = 'json' | 'csv';

/**
 * Renders every row of `data` into `out`, one value after the other, and records in
 * `ends[i]` the position just past row i. `ends` has room for `data.length` entries.
 */
export type ColumnRenderer = (data: Data, out: ByteWriter, ends: Int32Array) => void;

/** Null bitmap to test, or null when the Data has no nulls (skips the per-row test). */
export function nullBitmapOf(data: Data): Uint8Array | null {
  return data.nullCount > 0 && data.nullBitmap ? data.nullBitmap : null;
}

export function isNullAt(bitmap: Uint8Array, offset: number, index: number): boolean {
  const bit = offset + index;
  return ((bitmap[bit >> 3]! >> (bit & 7)) & 1) === 0;
}

const NULL_JSON = Buffer.from('null');

/** Writes the dialect's NULL: `null` in JSON, nothing in CSV. */
export function writeNull(bytes: Uint8Array, position: number, dialect: Dialect): number {
  if (dialect === 'csv') return position;
  bytes[position] = NULL_JSON[0]!;
  bytes[position + 1] = NULL_JSON[1]!;
  bytes[position + 2] = NULL_JSON[2]!;
  bytes[position + 3] = NULL_JSON[3]!;
  return position + 4;
}
