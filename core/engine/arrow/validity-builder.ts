import { bitmapByteLength, copyBits, countSetBits, isBitSet, setBitRange } from './bitmaps.js';
import { vectorValidity, type RawVector } from './duckdb-vectors.js';
import type { RowSelection } from './row-selection.js';

/** What `finish()` hands to `makeData`. */
export interface FinishedValidity {
  /** Absent when no row is null: Arrow then treats every row as valid. */
  readonly nullBitmap: Uint8Array | undefined;
  readonly nullCount: number;
}

/**
 * Builds one Arrow null bitmap from DuckDB validity masks.
 *
 * Most columns have no nulls, so the bitmap is only materialised at the first null; until
 * then appending is a count. DuckDB masks use Arrow's layout, so ranges are bit-copied.
 */
export class ValidityBuilder {
  private bitmap: Uint8Array | null = null;
  length = 0;
  nullCount = 0;

  /**
   * Appends the validity of the selected rows of `vector` and returns DuckDB's mask for
   * the caller to skip null rows with (`null` = all valid). Rows of a NULL value may hold
   * garbage (a string's pointer, a list's offsets), so callers must not read them.
   */
  appendFromVector(vector: RawVector, vectorLength: number, rows: RowSelection): Uint8Array | null {
    const mask = vectorValidity(vector, vectorLength);
    this.appendFromMask(mask, rows);
    return mask;
  }

  appendFromMask(mask: Uint8Array | null, rows: RowSelection): void {
    const { count } = rows;
    if (count === 0) return;
    if (mask === null) {
      this.appendValid(count);
      return;
    }
    if (rows.indexes === null) {
      const valid = countSetBits(mask, rows.start, count);
      if (valid === count) {
        this.appendValid(count);
        return;
      }
      const bitmap = this.materialise(count);
      copyBits(mask, rows.start, bitmap, this.length, count);
      this.length += count;
      this.nullCount += count - valid;
      return;
    }
    for (let i = 0; i < count; i++) {
      if (isBitSet(mask, rows.indexes[i]!)) this.appendValid(1);
      else this.appendNull();
    }
  }

  appendValid(count: number): void {
    if (this.bitmap !== null) setBitRange(this.materialise(count), this.length, count);
    this.length += count;
  }

  appendNull(): void {
    this.materialise(1);
    this.length += 1;
    this.nullCount += 1;
  }

  /** Ensures a bitmap with room for `additional` more bits; earlier rows are all valid. */
  private materialise(additional: number): Uint8Array {
    const needed = bitmapByteLength(this.length + additional);
    if (this.bitmap === null) {
      this.bitmap = new Uint8Array(Math.max(needed, 256));
      setBitRange(this.bitmap, 0, this.length);
    } else if (needed > this.bitmap.length) {
      const grown = new Uint8Array(Math.max(needed, this.bitmap.length * 2));
      grown.set(this.bitmap);
      this.bitmap = grown;
    }
    return this.bitmap;
  }

  finish(): FinishedValidity {
    const finished: FinishedValidity = this.nullCount === 0
      ? { nullBitmap: undefined, nullCount: 0 }
      : { nullBitmap: this.bitmap!.subarray(0, bitmapByteLength(this.length)), nullCount: this.nullCount };
    this.bitmap = null;
    this.length = 0;
    this.nullCount = 0;
    return finished;
  }
}
