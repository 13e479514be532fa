import { makeData, type Binary, type Data, type Utf8 } from 'apache-arrow';
import { vectorBytes, vectorValidity, type RawVector } from '../duckdb-vectors.js';
import { copyStrings, measureStrings } from '../../native/string-vector.js';
import { GrowableBytes, INITIAL_ROWS } from '../growable-bytes.js';
import { rowRange, type RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';
import { ValueTooLarge } from './value-too-large.js';

/** DuckDB `string_t`: uint32 length, then ≤ 12 bytes inline or a 4-byte prefix and a pointer. */
const STRING_T_BYTES = 16;
const MAX_OFFSET = 0x7fffffff;

/**
 * VARCHAR → Utf8 and BLOB/GEOMETRY → Binary, straight from `string_t` memory into Arrow
 * offsets and data; the bytes are never decoded to JS strings.
 *
 * One native call per vector sums the selected strings' lengths (`measureStrings`: to size
 * the data buffer, to cut batches by bytes, and to refuse values over
 * runtime.query.max_value_size), another copies their bytes (`copyStrings`), inline and
 * out-of-line strings alike. From
 * JavaScript an out-of-line string (over 12 bytes) needed a native call of its own, and the
 * per-string loop took ~80 ns: 10M rows of a 15-byte column took 780 ms to convert.
 */
export class StringAccumulator implements ColumnAccumulator {
  private readonly data = new GrowableBytes(INITIAL_ROWS * 16);
  private readonly offsets = new GrowableBytes(4 * (INITIAL_ROWS + 1));
  private readonly validity = new ValidityBuilder();
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
    this.measure(vector, vectorLength, rowRange(0, vectorLength), sizes);
  }

  /** The selected rows' bytes (adding each to `sizes` when given); a value over the limit throws. */
  private measure(vector: RawVector, vectorLength: number, rows: RowSelection, sizes: Float64Array | null): number {
    const total = measureStrings(vector, vectorLength, rows, this.maxValueBytes, sizes);
    if (total >= 0) return total;
    const row = -total - 1;
    const source = vectorBytes(vector, vectorLength * STRING_T_BYTES);
    throw new ValueTooLarge(new Uint32Array(source.buffer, source.byteOffset, vectorLength * 4)[row << 2]!, row, this.maxValueBytes);
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const { count } = rows;
    if (count === 0) return;
    this.validity.appendFromMask(vectorValidity(vector, vectorLength), rows);
    // Top-level columns were checked by addRowSizes already; strings inside lists and structs are checked here.
    const total = this.measure(vector, vectorLength, rows, null);
    if (this.data.length + total > MAX_OFFSET) {
      throw new Error(`a string column exceeds 2 GiB in one batch (${this.data.length + total} bytes); lower the batch size`);
    }
    const out = this.data.reserve(total);
    this.offsets.reserve(count * 4);
    const offsetAt = this.offsets.length >> 2;
    const offsets = new Int32Array(this.offsets.bytes.buffer, 0, offsetAt + count);
    this.data.length = copyStrings(vector, vectorLength, rows, out, this.data.length, offsets, offsetAt);
    this.offsets.length = (offsetAt + count) * 4;
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
