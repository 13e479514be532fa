/**
 * Rare DuckDB types rendered to Utf8 text while converting (see duckdb-to-arrow-type.ts
 * for why each is text): UUID, TIME_TZ, BIT, BIGNUM and VARIANT.
 */
import type { DuckDBType } from '@duckdb/node-api';
import { DuckDBVector, JsonDuckDBValueConverter } from '../../duckdb-api.js';
import type { Data } from 'apache-arrow';
import { isBitSet } from '../bitmaps.js';
import { vectorBytes, vectorValidity, type RawVector } from '../duckdb-vectors.js';
import { sourceRow, type RowSelection } from '../row-selection.js';
import { stringBytesAt, Utf8ColumnBuilder } from '../utf8-column-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/** Shared shape: a Utf8 builder fed one value per valid row by `appendRow`. */
abstract class TextRenderedAccumulator implements ColumnAccumulator {
  protected readonly builder = new Utf8ColumnBuilder();
  readonly type = this.builder.type;

  get length(): number {
    return this.builder.length;
  }

  get byteLength(): number {
    return this.builder.byteLength;
  }

  /** Bytes of DuckDB storage per row (16 for string_t and int128, 8 for TIME_TZ). */
  protected abstract readonly rowWidth: number;

  protected abstract appendRow(source: Uint8Array, row: number): void;

  /** Called once per `append` before its rows, for accumulators that need the vector itself. */
  protected beginAppend(_vector: RawVector, _vectorLength: number): void {}

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const source = vectorBytes(vector, vectorLength * this.rowWidth);
    // The builder records validity itself as rows are committed or appended as null.
    const mask = vectorValidity(vector, vectorLength);
    this.beginAppend(vector, vectorLength);
    for (let i = 0; i < rows.count; i++) {
      const row = sourceRow(rows, i);
      if (mask !== null && !isBitSet(mask, row)) this.builder.appendNull();
      else this.appendRow(source, row);
    }
  }

  finish(): Data {
    return this.builder.finish();
  }
}

const HEX = new TextEncoder().encode('0123456789abcdef');
const DASH = 45;

/** UUID: int128 with the top bit flipped (so it sorts like its text) → 8-4-4-4-12 hex. */
export class UuidAccumulator extends TextRenderedAccumulator {
  protected readonly rowWidth = 16;

  protected appendRow(source: Uint8Array, row: number): void {
    const out = this.builder.reserve(36);
    let at = this.builder.data.length;
    const base = row * 16;
    // Most significant byte first: bytes 15..0 of the little-endian int128.
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) out[at++] = DASH;
      let byte = source[base + 15 - i]!;
      if (i === 0) byte ^= 0x80;
      out[at++] = HEX[byte >> 4]!;
      out[at++] = HEX[byte & 15]!;
    }
    this.builder.commit(36);
  }
}

/** TIME_TZ: 40 bits of micros since midnight, 24 bits of encoded offset → `12:34:56.789+05:30`. */
export class TimeTzAccumulator extends TextRenderedAccumulator {
  protected readonly rowWidth = 8;

  protected appendRow(source: Uint8Array, row: number): void {
    const words = new Uint32Array(source.buffer, source.byteOffset + row * 8, 2);
    const low = words[0]!;
    const high = words[1]!;
    const micros = high * 256 + (low >>> 24);
    const offsetSeconds = 57599 - (low & 0xffffff);
    this.builder.appendString(timeText(micros) + offsetText(offsetSeconds));
  }
}

function pad2(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/** `HH:MM:SS` plus the fraction without trailing zeros, as DuckDB prints times. */
export function timeText(micros: number): string {
  const seconds = Math.floor(micros / 1e6);
  const fraction = micros - seconds * 1e6;
  let text = `${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor(seconds / 60) % 60)}:${pad2(seconds % 60)}`;
  if (fraction !== 0) text += '.' + String(fraction).padStart(6, '0').replace(/0+$/, '');
  return text;
}

/** `+HH`, `+HH:MM` or `+HH:MM:SS`, as DuckDB prints UTC offsets. */
function offsetText(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const absolute = Math.abs(offsetSeconds);
  const hours = Math.floor(absolute / 3600);
  const minutes = Math.floor(absolute / 60) % 60;
  const seconds = absolute % 60;
  let text = sign + pad2(hours);
  if (minutes !== 0 || seconds !== 0) text += ':' + pad2(minutes);
  if (seconds !== 0) text += ':' + pad2(seconds);
  return text;
}

/** BIT: a padding-count byte, then bits MSB first (padding bits lead) → '0'/'1' text. */
export class BitAccumulator extends TextRenderedAccumulator {
  protected readonly rowWidth = 16;

  protected appendRow(source: Uint8Array, row: number): void {
    const bytes = stringBytesAt(source, row);
    const padding = bytes[0] ?? 0;
    const bitCount = Math.max(0, (bytes.length - 1) * 8 - padding);
    const out = this.builder.reserve(bitCount);
    const at = this.builder.data.length;
    for (let i = 0; i < bitCount; i++) {
      const bit = i + padding;
      out[at + i] = (bytes[1 + (bit >> 3)]! >> (7 - (bit & 7))) & 1 ? 49 : 48;
    }
    this.builder.commit(bitCount);
  }
}

/**
 * BIGNUM (VARINT): a 3-byte header whose top bit is set for non-negative values, then the
 * big-endian magnitude; negative values have every byte inverted → decimal digits.
 */
export class BigNumAccumulator extends TextRenderedAccumulator {
  protected readonly rowWidth = 16;

  protected appendRow(source: Uint8Array, row: number): void {
    const bytes = stringBytesAt(source, row);
    const negative = (bytes[0]! & 0x80) === 0;
    let hex = '';
    for (let i = 3; i < bytes.length; i++) {
      const byte = negative ? ~bytes[i]! & 0xff : bytes[i]!;
      hex += (byte < 16 ? '0' : '') + byte.toString(16);
    }
    const magnitude = hex === '' ? 0n : BigInt('0x' + hex);
    this.builder.appendString((negative && magnitude !== 0n ? '-' : '') + magnitude.toString());
  }
}

/**
 * VARIANT: decoded by node-api's reader (its binary layout is a nested structure of
 * lists and blobs) and stored as JSON text. Rare enough that per-value cost is fine.
 */
export class VariantAccumulator extends TextRenderedAccumulator {
  protected readonly rowWidth = 0;

  private reader: DuckDBVector | null = null;

  constructor(private readonly duckdbType: DuckDBType) {
    super();
  }

  protected override beginAppend(vector: RawVector, vectorLength: number): void {
    this.reader = DuckDBVector.create(vector, vectorLength, this.duckdbType);
  }

  // The reader holds the chunk's vector: let it go with the batch (the assembler may be kept for the next run).
  override finish(): Data {
    this.reader = null;
    return super.finish();
  }

  protected appendRow(_source: Uint8Array, row: number): void {
    const value = this.reader!.getItem(row);
    if (value === null) {
      this.builder.appendNull();
      return;
    }
    const json = JsonDuckDBValueConverter(value, this.duckdbType, JsonDuckDBValueConverter);
    this.builder.appendString(JSON.stringify(json));
  }
}
