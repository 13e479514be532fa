import { makeData, type Binary, type Data, type Utf8 } from 'apache-arrow';
import { bytesAtPointer, vectorBytes, vectorValidity, type RawVector } from '../duckdb-vectors.js';
import { GrowableBytes, INITIAL_ROWS } from '../growable-bytes.js';
import type { RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';
import { ValueTooLarge } from './value-too-large.js';

/** DuckDB `string_t`: uint32 length, then ≤ 12 bytes inline or a 4-byte prefix and a pointer. */
const STRING_T_BYTES = 16;
const INLINE_LIMIT = 12;
const TWO_TO_32 = 4294967296;
const MAX_OFFSET = 0x7fffffff;
/** Run members at most this long are copied byte by byte; longer ones with one `set`. */
const SHORT_COPY = 32;

/**
 * VARCHAR → Utf8 and BLOB/GEOMETRY → Binary, straight from `string_t` memory into Arrow
 * offsets and data; the bytes are never decoded to JS strings.
 *
 * Inline strings are copied from the vector view. Longer strings live elsewhere and need
 * a native call to read, which costs ~0.6 µs, far more than the copy. DuckDB usually lays
 * a chunk's long strings out back to back, so consecutive strings whose bytes are
 * adjacent form a run read with one call; the run's span holds nothing but those
 * strings' own bytes, so reading it never touches memory outside them.
 *
 * Performance notes (this loop runs once per string of every result): no closures over
 * mutable locals (V8 would keep them in a heap context), no typed-array views created per
 * string (a Buffer `subarray` costs far more than copying a 20-byte string), and the
 * whole-vector case reads rows by index without going through a RowSelection.
 */
export class StringAccumulator implements ColumnAccumulator {
  private readonly data = new GrowableBytes(INITIAL_ROWS * 16);
  private readonly offsets = new GrowableBytes(4 * (INITIAL_ROWS + 1));
  private readonly validity = new ValidityBuilder();
  /** Output positions and lengths of the current run's strings, reused across appends. */
  // Sized by the first chunk (at most 2,048 rows): a one-row result allocates no 16 KB.
  private runTargets = new Int32Array(0);
  private runLengths = new Int32Array(0);
  length = 0;

  /** @param maxValueBytes the longest value a result may carry (runtime.query.max_value_size). */
  constructor(
    readonly type: Utf8 | Binary,
    private readonly maxValueBytes: number,
  ) {
    new Int32Array(this.offsets.bytes.buffer, 0, 1)[0] = 0;
    this.offsets.length = 4;
  }

  get byteLength(): number {
    return this.data.length + this.offsets.length;
  }

  addRowSizes(vector: RawVector, vectorLength: number, sizes: Float64Array): void {
    const mask = vectorValidity(vector, vectorLength);
    const source = vectorBytes(vector, vectorLength * STRING_T_BYTES);
    const words = new Uint32Array(source.buffer, source.byteOffset, vectorLength * 4);
    for (let row = 0; row < vectorLength; row++) {
      if (mask !== null && ((mask[row >> 3]! >> (row & 7)) & 1) === 0) continue;
      const length = words[row << 2]!;
      if (length > this.maxValueBytes) throw new ValueTooLarge(length, row, this.maxValueBytes);
      sizes[row]! += length;
    }
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const { count } = rows;
    if (count === 0) return;
    const mask = vectorValidity(vector, vectorLength);
    this.validity.appendFromMask(mask, rows);
    const source = vectorBytes(vector, vectorLength * STRING_T_BYTES);
    const words = new Uint32Array(source.buffer, source.byteOffset, vectorLength * 4);
    const indexes = rows.indexes;
    const start = rows.start;

    let total = 0;
    for (let i = 0; i < count; i++) {
      const row = indexes === null ? start + i : indexes[i]!;
      if (mask === null || ((mask[row >> 3]! >> (row & 7)) & 1) === 1) {
        const length = words[row << 2]!;
        // Top-level columns were checked by addRowSizes; strings inside lists and structs are checked here.
        if (length > this.maxValueBytes) throw new ValueTooLarge(length, row, this.maxValueBytes);
        total += length;
      }
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
    const base = source.byteOffset;
    let position = this.data.length;
    // Current run of adjacent out-of-line strings: its members' output positions and
    // lengths, where its first pointer sits in `source`, and its span in DuckDB memory.
    let runMembers = 0;
    let runSlot = 0;
    let runStart = 0;
    let runEnd = -1;
    let runTargetContiguous = true;

    for (let i = 0; i < count; i++) {
      const row = indexes === null ? start + i : indexes[i]!;
      if (mask === null || ((mask[row >> 3]! >> (row & 7)) & 1) === 1) {
        const slot = row << 2;
        const length = words[slot]!;
        if (length <= INLINE_LIMIT) {
          const from = (row << 4) + 4;
          for (let b = 0; b < length; b++) out[position + b] = source[from + b]!;
        } else {
          const address = words[slot + 3]! * TWO_TO_32 + words[slot + 2]!;
          if (runMembers > 0 && address === runEnd) {
            if (runTargetContiguous && runTargets[runMembers - 1]! + runLengths[runMembers - 1]! !== position) runTargetContiguous = false;
            runEnd += length;
          } else {
            if (runMembers > 0) copyRun(out, buffer, runSlot, runEnd - runStart, runMembers, runTargets, runLengths, runTargetContiguous);
            runMembers = 0;
            runSlot = base + (row << 4) + 8;
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
    if (runMembers > 0) copyRun(out, buffer, runSlot, runEnd - runStart, runMembers, runTargets, runLengths, runTargetContiguous);
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

/**
 * Reads one run's span (the pointer of its first member sits at `pointerOffset` of
 * `buffer`) and scatters its members to their output positions.
 */
function copyRun(
  out: Uint8Array,
  buffer: ArrayBuffer,
  pointerOffset: number,
  spanLength: number,
  members: number,
  targets: Int32Array,
  lengths: Int32Array,
  contiguous: boolean,
): void {
  const span = bytesAtPointer(buffer, pointerOffset, spanLength);
  if (contiguous) {
    out.set(span, targets[0]!);
    return;
  }
  // Members whose outputs are back to back (no inline string between them) go together.
  let from = 0;
  let m = 0;
  while (m < members) {
    const to = targets[m]!;
    let length = lengths[m]!;
    let next = m + 1;
    while (next < members && targets[next] === to + length) length += lengths[next++]!;
    if (length <= SHORT_COPY) {
      for (let b = 0; b < length; b++) out[to + b] = span[from + b]!;
    } else {
      out.set(new Uint8Array(span.buffer, span.byteOffset + from, length), to);
    }
    from += length;
    m = next;
  }
}
