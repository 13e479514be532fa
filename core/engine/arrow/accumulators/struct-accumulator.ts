import { makeData, type Data, type Struct } from 'apache-arrow';
import { structChild, type RawVector } from '../duckdb-vectors.js';
import type { RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/**
 * STRUCT → Struct: each member is its own full-length vector in both systems. DuckDB marks
 * the members of a NULL struct NULL too, so member rows are always safe to read.
 */
export class StructAccumulator implements ColumnAccumulator {
  private readonly validity = new ValidityBuilder();
  length = 0;

  constructor(
    readonly type: Struct,
    private readonly children: readonly ColumnAccumulator[],
  ) {}

  get byteLength(): number {
    let bytes = 0;
    for (const child of this.children) bytes += child.byteLength;
    return bytes;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    this.validity.appendFromVector(vector, vectorLength, rows);
    this.children.forEach((child, i) => child.append(structChild(vector, i), vectorLength, rows));
    this.length += rows.count;
  }

  finish(): Data {
    const { nullBitmap, nullCount } = this.validity.finish();
    const length = this.length;
    this.length = 0;
    return makeData({ type: this.type, length, nullCount, nullBitmap, children: this.children.map((child) => child.finish()) });
  }
}
