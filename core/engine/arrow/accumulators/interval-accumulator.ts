import { IntervalMonthDayNano, makeData, type Data } from 'apache-arrow';
import { vectorBytes, type RawVector } from '../duckdb-vectors.js';
import { GrowableBytes, INITIAL_ROWS } from '../growable-bytes.js';
import { sourceRow, type RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/**
 * INTERVAL → Interval(MONTH_DAY_NANO). Both are 16 bytes: int32 months, int32 days, int64
 * sub-day time; DuckDB counts microseconds and Arrow nanoseconds, so the last field is
 * multiplied by 1000 (wrapping past ±292 years of sub-day time, which DuckDB cannot hold
 * in practice).
 */
export class IntervalAccumulator implements ColumnAccumulator {
  readonly type = new IntervalMonthDayNano();
  private readonly values = new GrowableBytes(16 * INITIAL_ROWS);
  private readonly validity = new ValidityBuilder();
  length = 0;

  get byteLength(): number {
    return this.values.length;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const { count } = rows;
    this.validity.appendFromVector(vector, vectorLength, rows);
    const bytes = vectorBytes(vector, vectorLength * 16);
    const source32 = new Int32Array(bytes.buffer, bytes.byteOffset, vectorLength * 4);
    const source64 = new BigInt64Array(bytes.buffer, bytes.byteOffset, vectorLength * 2);
    this.values.reserve(count * 16);
    const target32 = new Int32Array(this.values.bytes.buffer, this.values.length, count * 4);
    const target64 = new BigInt64Array(this.values.bytes.buffer, this.values.length, count * 2);
    for (let i = 0; i < count; i++) {
      const row = sourceRow(rows, i);
      target32[i * 4] = source32[row * 4]!;
      target32[i * 4 + 1] = source32[row * 4 + 1]!;
      target64[i * 2 + 1] = BigInt.asIntN(64, source64[row * 2 + 1]! * 1000n);
    }
    this.values.length += count * 16;
    this.length += count;
  }

  finish(): Data {
    const bytes = this.values.take();
    const { nullBitmap, nullCount } = this.validity.finish();
    const length = this.length;
    this.length = 0;
    return makeData({ type: this.type, length, nullCount, nullBitmap, data: new Int32Array(bytes.buffer, bytes.byteOffset, length * 4) });
  }
}
