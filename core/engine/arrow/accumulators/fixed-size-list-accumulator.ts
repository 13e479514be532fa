import { makeData, type Data, type FixedSizeList } from 'apache-arrow';
import { arrayChild, type RawVector } from '../duckdb-vectors.js';
import { rowIndexes, rowRange, sourceRow, type RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/** ARRAY(n) → FixedSizeList(n): row r owns child rows [r·n, (r+1)·n) in both systems. */
export class FixedSizeListAccumulator implements ColumnAccumulator {
  private readonly validity = new ValidityBuilder();
  length = 0;

  constructor(
    readonly type: FixedSizeList,
    private readonly child: ColumnAccumulator,
  ) {}

  get byteLength(): number {
    return this.child.byteLength;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const size = this.type.listSize;
    this.validity.appendFromVector(vector, vectorLength, rows);
    this.length += rows.count;
    if (size === 0 || rows.count === 0) return;
    const child = arrayChild(vector);
    if (rows.indexes === null) {
      this.child.append(child, vectorLength * size, rowRange(rows.start * size, rows.count * size));
      return;
    }
    const gathered = new Uint32Array(rows.count * size);
    for (let i = 0; i < rows.count; i++) {
      const base = sourceRow(rows, i) * size;
      for (let j = 0; j < size; j++) gathered[i * size + j] = base + j;
    }
    this.child.append(child, vectorLength * size, rowIndexes(gathered));
  }

  finish(): Data {
    const { nullBitmap, nullCount } = this.validity.finish();
    const length = this.length;
    this.length = 0;
    return makeData({ type: this.type, length, nullCount, nullBitmap, child: this.child.finish() });
  }
}
