import { makeData, type Binary, type Data, type Utf8 } from 'apache-arrow';
import { isBitSet } from '../bitmaps.js';
import { bytesAtPointer, vectorBytes, type RawVector } from '../duckdb-vectors.js';
import { GrowableBytes } from '../growable-bytes.js';
import { sourceRow, type RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/** DuckDB `string_t`: uint32 length, then ≤ 12 bytes inline or a 4-byte prefix and a pointer. */
const STRING_T_BYTES = 16;
const INLINE_LIMIT = 12;
const TWO_TO_32 = 4294967296;
const MAX_OFFSET = 0x7fffffff;

/**
 * VARCHAR → Utf8 and BLOB/GEOMETRY → Binary, straight from `string_t` memory into Arrow
 * offsets and data; the bytes are never decoded to JS strings.
 *
 * Inline strings are copied from the vector view. Longer strings live elsewhere and need
 * a native call to read, which costs ~0.6 µs, far more than the copy. DuckDB usually lays
 * a chunk's long strings out back to back, so consecutive strings whose bytes are
 * adjacent form a run read with one call; the run's span holds nothing but those
 * strings' own bytes, so reading it never touches memory outside them.
 */
export class StringAccumulator implements ColumnAccumulator {
  private readonly data = new GrowableBytes(64 * 1024);
  private readonly offsets = new GrowableBytes(4 * 2049);
  private readonly validity = new ValidityBuilder();
  /** Output positions and lengths of the current run's strings, reused across appends. */
  private runTargets = new Int32Array(2048);
  private runLengths = new Int32Array(2048);
  length = 0;

  constructor(readonly type: Utf8 | Binary) {
    new Int32Array(this.offsets.bytes.buffer, 0, 1)[0] = 0;
    this.offsets.length = 4;
  }

  get byteLength(): number {
    return this.data.length + this.offsets.length;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const { count } = rows;
    if (count === 0) return;
    const mask = this.validity.appendFromVector(vector, vectorLength, rows);
    const source = vectorBytes(vector, vectorLength * STRING_T_BYTES);
    const words = new Uint32Array(source.buffer, source.byteOffset, vectorLength * 4);

    let total = 0;
    for (let i = 0; i < count; i++) {
      const row = sourceRow(rows, i);
      if (mask === null || isBitSet(mask, row)) total += words[row * 4]!;
    }
    if (this.data.length + total > MAX_OFFSET) {
      throw new Error(`a string column exceeds 2 GiB in one batch (${this.data.length + total} bytes); lower the batch size`);
    }
    const out = this.data.reserve(total);
    this.offsets.reserve(count * 4);
    const offsets = new Int32Array(this.offsets.bytes.buffer, 0, (this.offsets.length >> 2) + count);
    let offsetAt = this.offsets.length >> 2;
    if (this.runTargets.length < count) {
      this.runTargets = new Int32Array(count);
      this.runLengths = new Int32Array(count);
    }
    const runTargets = this.runTargets;
    const runLengths = this.runLengths;

    const buffer = source.buffer as ArrayBuffer;
    let position = this.data.length;
    // Current run of adjacent out-of-line strings.
    let runMembers = 0;
    let runSlot = 0;
    let runStart = 0;
    let runEnd = -1;
    let runTargetContiguous = true;

    const closeRun = (): void => {
      const span = bytesAtPointer(buffer, runSlot, runEnd - runStart);
      if (runTargetContiguous) {
        out.set(span, runTargets[0]!);
      } else {
        let from = 0;
        for (let m = 0; m < runMembers; m++) {
          const length = runLengths[m]!;
          out.set(span.subarray(from, from + length), runTargets[m]!);
          from += length;
        }
      }
      runMembers = 0;
    };

    for (let i = 0; i < count; i++) {
      const row = sourceRow(rows, i);
      if (mask === null || isBitSet(mask, row)) {
        const slot = row * 4;
        const length = words[slot]!;
        if (length <= INLINE_LIMIT) {
          const from = row * STRING_T_BYTES + 4;
          for (let b = 0; b < length; b++) out[position + b] = source[from + b]!;
        } else {
          const address = words[slot + 3]! * TWO_TO_32 + words[slot + 2]!;
          if (runMembers > 0 && address === runEnd) {
            if (runTargets[runMembers - 1]! + runLengths[runMembers - 1]! !== position) runTargetContiguous = false;
            runEnd += length;
          } else {
            if (runMembers > 0) closeRun();
            runSlot = source.byteOffset + row * STRING_T_BYTES + 8;
            runStart = address;
            runEnd = address + length;
            runTargetContiguous = true;
          }
          runTargets[runMembers] = position;
          runLengths[runMembers] = length;
          runMembers++;
        }
        position += length;
      }
      offsets[offsetAt++] = position;
    }
    if (runMembers > 0) closeRun();
    this.data.length = position;
    this.offsets.length = offsetAt * 4;
    this.length += count;
  }

  finish(): Data {
    const data = this.data.take();
    const offsetBytes = this.offsets.take();
    new Int32Array(this.offsets.bytes.buffer, 0, 1)[0] = 0;
    this.offsets.length = 4;
    const { nullBitmap, nullCount } = this.validity.finish();
    const length = this.length;
    this.length = 0;
    const valueOffsets = new Int32Array(offsetBytes.buffer, offsetBytes.byteOffset, length + 1);
    return makeData({ type: this.type, length, nullCount, nullBitmap, valueOffsets, data } as never);
  }
}
