import { makeData, Utf8, type Data } from 'apache-arrow';
import { bytesAtPointer } from './duckdb-vectors.js';
import { GrowableBytes } from './growable-bytes.js';
import { ValidityBuilder } from './validity-builder.js';

const encoder = new TextEncoder();

/**
 * A Utf8 column built value by value, for the rare DuckDB types rendered as text (UUID,
 * TIME_TZ, BIT, BIGNUM, VARIANT). The common VARCHAR path is StringAccumulator.
 */
export class Utf8ColumnBuilder {
  readonly type = new Utf8();
  readonly validity = new ValidityBuilder();
  readonly data = new GrowableBytes(16 * 1024);
  private offsets: Int32Array = new Int32Array(2049);
  length = 0;

  get byteLength(): number {
    return this.data.length + this.length * 4;
  }

  /** Space for `byteCount` more bytes; write them at `data.length`, then `commit(byteCount)`. */
  reserve(byteCount: number): Uint8Array {
    return this.data.reserve(byteCount);
  }

  commit(byteCount: number): void {
    this.data.length += byteCount;
    this.endValue();
  }

  appendString(text: string): void {
    const out = this.data.reserve(text.length * 3);
    const { written } = encoder.encodeInto(text, out.subarray(this.data.length));
    this.commit(written);
  }

  appendNull(): void {
    this.validity.appendNull();
    this.length++;
    this.pushOffset();
  }

  private endValue(): void {
    this.validity.appendValid(1);
    this.length++;
    this.pushOffset();
  }

  private pushOffset(): void {
    if (this.length + 1 > this.offsets.length) {
      const grown = new Int32Array(this.offsets.length * 2);
      grown.set(this.offsets);
      this.offsets = grown;
    }
    this.offsets[this.length] = this.data.length;
  }

  finish(): Data<Utf8> {
    const data = this.data.take();
    const valueOffsets = this.offsets.subarray(0, this.length + 1);
    const { nullBitmap, nullCount } = this.validity.finish();
    const length = this.length;
    this.offsets = new Int32Array(2049);
    this.length = 0;
    return makeData({ type: this.type, length, nullCount, nullBitmap, valueOffsets, data });
  }
}

/**
 * The bytes of the `string_t` at `row` of a VARCHAR/BLOB/BIT/BIGNUM vector's data
 * `source`. Inline bytes are a view into DuckDB memory: use them before returning.
 */
export function stringBytesAt(source: Uint8Array, row: number): Uint8Array {
  const at = row * 16;
  const length = (source[at]! | (source[at + 1]! << 8) | (source[at + 2]! << 16) | (source[at + 3]! << 24)) >>> 0;
  if (length <= 12) return source.subarray(at + 4, at + 4 + length);
  return bytesAtPointer(source.buffer as ArrayBuffer, source.byteOffset + at + 8, length);
}
