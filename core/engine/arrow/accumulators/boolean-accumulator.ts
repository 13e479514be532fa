import { Bool, makeData, type Data } from 'apache-arrow';
import { bitmapByteLength } from '../bitmaps.js';
import { booleanByteWidth, vectorBytes, type RawVector } from '../duckdb-vectors.js';
import { sourceRow, type RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/** BOOLEAN: DuckDB keeps one byte per value, Arrow one bit, so values are packed. */
export class BooleanAccumulator implements ColumnAccumulator {
  readonly type = new Bool();
  private readonly validity = new ValidityBuilder();
  private bits = new Uint8Array(256);
  length = 0;

  get byteLength(): number {
    return this.length >> 3;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const width = booleanByteWidth;
    this.validity.appendFromVector(vector, vectorLength, rows);
    const source = vectorBytes(vector, vectorLength * width);
    const needed = bitmapByteLength(this.length + rows.count);
    if (needed > this.bits.length) {
      const grown = new Uint8Array(Math.max(needed, this.bits.length * 2));
      grown.set(this.bits);
      this.bits = grown;
    }
    const bits = this.bits;
    let target = this.length;
    if (rows.indexes === null && width === 1) {
      const end = rows.start + rows.count;
      let row = rows.start;
      if ((target & 7) === 0) {
        // Chunks start on byte boundaries: pack eight values into each output byte.
        for (let byte = target >> 3; row + 8 <= end; row += 8, target += 8, byte++) {
          bits[byte] =
            (source[row] !== 0 ? 1 : 0) | (source[row + 1] !== 0 ? 2 : 0) | (source[row + 2] !== 0 ? 4 : 0) | (source[row + 3] !== 0 ? 8 : 0) |
            (source[row + 4] !== 0 ? 16 : 0) | (source[row + 5] !== 0 ? 32 : 0) | (source[row + 6] !== 0 ? 64 : 0) | (source[row + 7] !== 0 ? 128 : 0);
        }
      }
      for (; row < end; row++, target++) {
        if (source[row] !== 0) bits[target >> 3]! |= 1 << (target & 7);
      }
    } else {
      for (let i = 0; i < rows.count; i++, target++) {
        const at = sourceRow(rows, i) * width;
        let value = 0;
        for (let b = 0; b < width; b++) value |= source[at + b]!;
        if (value !== 0) bits[target >> 3]! |= 1 << (target & 7);
      }
    }
    this.length += rows.count;
  }

  finish(): Data {
    const { nullBitmap, nullCount } = this.validity.finish();
    const data = this.bits.subarray(0, bitmapByteLength(this.length));
    const length = this.length;
    this.bits = new Uint8Array(256);
    this.length = 0;
    return makeData({ type: this.type, length, nullCount, nullBitmap, data });
  }
}
