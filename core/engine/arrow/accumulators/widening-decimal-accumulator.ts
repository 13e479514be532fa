import { makeData, type Data, type Decimal } from 'apache-arrow';
import { vectorBytes, type RawVector } from '../duckdb-vectors.js';
import { GrowableBytes } from '../growable-bytes.js';
import { sourceRow, type RowSelection } from '../row-selection.js';
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
    this.values = new GrowableBytes(this.targetWords * 4 * 2048);
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
    switch (this.sourceWidth) {
      case 2: {
        const source = new Int16Array(bytes.buffer, bytes.byteOffset, vectorLength);
        for (let i = 0; i < count; i++) signExtend(target, i * words, words, source[sourceRow(rows, i)]!, 1);
        break;
      }
      case 4: {
        const source = new Int32Array(bytes.buffer, bytes.byteOffset, vectorLength);
        for (let i = 0; i < count; i++) signExtend(target, i * words, words, source[sourceRow(rows, i)]!, 1);
        break;
      }
      case 8: {
        const source = new Int32Array(bytes.buffer, bytes.byteOffset, vectorLength * 2);
        for (let i = 0; i < count; i++) {
          const row = sourceRow(rows, i);
          target[i * words] = source[row * 2]!;
          signExtend(target, i * words + 1, words - 1, source[row * 2 + 1]!, 1);
        }
        break;
      }
      case 16: {
        const source = new Int32Array(bytes.buffer, bytes.byteOffset, vectorLength * 4);
        for (let i = 0; i < count; i++) {
          const row = sourceRow(rows, i);
          const to = i * words;
          for (let w = 0; w < 4; w++) target[to + w] = source[row * 4 + w]!;
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

/** Writes `value` then its sign into the remaining words of one little-endian integer. */
function signExtend(target: Int32Array, at: number, wordCount: number, value: number, valueWords: number): void {
  target[at] = value;
  const sign = value < 0 ? -1 : 0;
  for (let w = valueWords; w < wordCount; w++) target[at + w] = sign;
}
