import { makeData, type Data, type SparseUnion } from 'apache-arrow';
import { isBitSet } from '../bitmaps.js';
import { structChild, vectorBytes, vectorValidity, type RawVector } from '../duckdb-vectors.js';
import { sourceRow, type RowSelection } from '../row-selection.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/**
 * UNION → SparseUnion. DuckDB stores a union as a struct of a uint8 tag and one
 * full-length vector per member, with every member but the selected one NULL: Arrow's
 * sparse layout. Arrow unions have no validity of their own; a NULL union (tag NULL, all
 * members NULL in DuckDB) becomes type id 0 pointing at member 0's NULL.
 */
export class UnionAccumulator implements ColumnAccumulator {
  private typeIds = new Int8Array(2048);
  length = 0;

  constructor(
    readonly type: SparseUnion,
    private readonly members: readonly ColumnAccumulator[],
  ) {}

  get byteLength(): number {
    let bytes = this.length;
    for (const member of this.members) bytes += member.byteLength;
    return bytes;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const { count } = rows;
    const tagVector = structChild(vector, 0);
    const tags = vectorBytes(tagVector, vectorLength);
    const unionMask = vectorValidity(vector, vectorLength);
    const tagMask = vectorValidity(tagVector, vectorLength);
    if (this.length + count > this.typeIds.length) {
      const grown = new Int8Array(Math.max(this.length + count, this.typeIds.length * 2));
      grown.set(this.typeIds.subarray(0, this.length));
      this.typeIds = grown;
    }
    for (let i = 0; i < count; i++) {
      const row = sourceRow(rows, i);
      const valid = (unionMask === null || isBitSet(unionMask, row)) && (tagMask === null || isBitSet(tagMask, row));
      this.typeIds[this.length + i] = valid ? tags[row]! : 0;
    }
    this.members.forEach((member, i) => member.append(structChild(vector, i + 1), vectorLength, rows));
    this.length += count;
  }

  finish(): Data {
    const typeIds = this.typeIds.subarray(0, this.length);
    const length = this.length;
    this.typeIds = new Int8Array(2048);
    this.length = 0;
    const children = this.members.map((member) => member.finish());
    return makeData({ type: this.type, length, typeIds, children } as never);
  }
}
