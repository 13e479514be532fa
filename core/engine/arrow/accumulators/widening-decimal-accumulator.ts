import { makeData, type Data, type Decimal } from 'apache-arrow';
import { vectorBytes, type RawVector } from '../duckdb-vectors.js';
import { GrowableBytes, INITIAL_ROWS } from '../growable-bytes.js';
import type { RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/**
 * Integers stored narrower than their Arrow decimal: DECIMAL(p ≤ 18) is int16/32/64 in
 * DuckDB and Decimal128 in Arrow (sign-extended), and UHUGEINT's unsigned 128 bits become
 * Decimal256 (zero-extended). Works on 32-bit words, never BigInt, to stay allocation-free.
 */
export class WideningDecimalAccumulator implements ColumnAccumulator {
  private readonly values: GrowableBytes;
  private readonly validity = new ValidityBuilder();
  private readonly targetWords: number;
  length = 0;

  constructor(
    readonly type: Decimal,
    /** DuckDB storage width in bytes: 2, 4, 8 (signed) or 16 (unsigned, UHUGEINT). */
    private readonly sourceWidth: 2 | 4 | 8 | 16,
  ) {
    this.targetWords = type.bitWidth / 32;
    this.values = new GrowableBytes(this.targetWords * 4 * INITIAL_ROWS);
  }

  get byteLength(): number {
    return this.values.length;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const { count } = rows;
    const words = this.targetWords;
    this.validity.appendFromVector(vector, vectorLength, rows);
    const bytes = vectorBytes(vector, vectorLength * this.sourceWidth);
    this.values.reserve(count * words * 4);
    const target = new Int32Array(this.values.bytes.buffer, this.values.length, count * words);
    const indexes = rows.indexes;
    switch (this.sourceWidth) {
      case 2:
      case 4: {
        const source = this.sourceWidth === 2 ? new Int16Array(bytes.buffer, bytes.byteOffset, vectorLength) : new Int32Array(bytes.buffer, bytes.byteOffset, vectorLength);
        for (let i = 0, to = 0; i < count; i++, to += words) {
          const value = source[indexes === null ? rows.start + i : indexes[i]!]!;
          const sign = value >> 31;
          target[to] = value;
          for (let w = 1; w < words; w++) target[to + w] = sign;
        }
        break;
      }
      case 8: {
        const source = new Int32Array(bytes.buffer, bytes.byteOffset, vectorLength * 2);
        if (indexes === null && words === 4) {
          // DECIMAL(10..18) → Decimal128, the common case: low word, high word, two sign words.
          for (let from = rows.start * 2, to = 0, end = count * 4; to < end; to += 4, from += 2) {
            const high = source[from + 1]!;
            const sign = high >> 31;
            target[to] = source[from]!;
            target[to + 1] = high;
            target[to + 2] = sign;
            target[to + 3] = sign;
          }
        } else {
          for (let i = 0, to = 0; i < count; i++, to += words) {
            const row = indexes === null ? rows.start + i : indexes[i]!;
            const high = source[row * 2 + 1]!;
            const sign = high >> 31;
            target[to] = source[row * 2]!;
            target[to + 1] = high;
            for (let w = 2; w < words; w++) target[to + w] = sign;
          }
        }
        break;
      }
      case 16: {
        const source = new Int32Array(bytes.buffer, bytes.byteOffset, vectorLength * 4);
        for (let i = 0, to = 0; i < count; i++, to += words) {
          const from = (indexes === null ? rows.start + i : indexes[i]!) * 4;
          for (let w = 0; w < 4; w++) target[to + w] = source[from + w]!;
          for (let w = 4; w < words; w++) target[to + w] = 0;
        }
        break;
      }
    }
    this.values.length += count * words * 4;
    this.length += count;
  }

  finish(): Data {
    const data = this.values.take();
    const { nullBitmap, nullCount } = this.validity.finish();
    const length = this.length;
    this.length = 0;
    return makeData({ type: this.type, length, nullCount, nullBitmap, data: new Uint32Array(data.buffer, data.byteOffset, data.byteLength / 4) });
  }
}
