import { makeData, type Data, type DataType, type Vector } from 'apache-arrow';
import { vectorBytes, type RawVector } from '../duckdb-vectors.js';
import { GrowableBytes, INITIAL_ROWS } from '../growable-bytes.js';
import type { RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/**
 * Columns whose DuckDB and Arrow layouts are the same fixed-width little-endian values:
 * integers, floats, DATE (int32 days), TIME/TIMESTAMP* (int64 in the unit), TIME_NS,
 * HUGEINT (int128 = Decimal128 bits) and ENUM indices. Appending a range is one memcpy.
 */
export class FixedWidthAccumulator implements ColumnAccumulator {
  private readonly values: GrowableBytes;
  private readonly validity = new ValidityBuilder();
  length = 0;

  constructor(
    readonly type: DataType,
    private readonly byteWidth: number,
    /** The dictionary of a Dictionary column (ENUM), shared by every batch. */
    private readonly dictionary?: Vector,
  ) {
    this.values = new GrowableBytes(byteWidth * INITIAL_ROWS);
  }

  get byteLength(): number {
    return this.values.length;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const width = this.byteWidth;
    this.validity.appendFromVector(vector, vectorLength, rows);
    const source = vectorBytes(vector, vectorLength * width);
    const target = this.values.reserve(rows.count * width);
    const at = this.values.length;
    if (rows.indexes === null) {
      // A whole chunk is the usual case: copy the view as is. Otherwise a plain Uint8Array
      // view (Buffer#subarray builds a Buffer, which costs more than the copy of a chunk).
      const bytes = rows.count * width;
      target.set(rows.start === 0 && bytes === source.length ? source : new Uint8Array(source.buffer, source.byteOffset + rows.start * width, bytes), at);
    } else {
      // Byte copies: going through Float64Array elements could canonicalise NaN payloads.
      const { indexes } = rows;
      for (let i = 0; i < rows.count; i++) {
        const from = indexes[i]! * width;
        const to = at + i * width;
        for (let b = 0; b < width; b++) target[to + b] = source[from + b]!;
      }
    }
    this.values.length += rows.count * width;
    this.length += rows.count;
  }

  finish(): Data {
    const bytes = this.values.take();
    const { nullBitmap, nullCount } = this.validity.finish();
    const length = this.length;
    this.length = 0;
    // makeData views the bytes as the type's typed array (indices' for a Dictionary) without
    // copying. Its overloads are per type; these props suit every fixed-width type here.
    const props: Record<string, unknown> = { type: this.type, length, nullCount, nullBitmap, data: bytes };
    if (this.dictionary) props.dictionary = this.dictionary;
    return makeData(props as never);
  }
}
