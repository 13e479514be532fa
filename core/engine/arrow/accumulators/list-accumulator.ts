import { makeData, type Data, type List, type Map_ } from 'apache-arrow';
import { isBitSet } from '../bitmaps.js';
import { listChild, listChildLength, vectorBytes, type RawVector } from '../duckdb-vectors.js';
import { GrowableBytes, INITIAL_ROWS } from '../growable-bytes.js';
import { rowIndexes, rowRange, sourceRow, type RowSelection } from '../row-selection.js';
import { ValidityBuilder } from '../validity-builder.js';
import type { ColumnAccumulator } from './column-accumulator.js';

const TWO_TO_32 = 4294967296;

/**
 * LIST → List and MAP → Map_ (a MAP is a list of key/value structs in both systems).
 *
 * DuckDB list entries are {uint64 offset, uint64 length} into a child vector and may point
 * anywhere in it (even overlap); Arrow needs monotonic offsets. When the selected lists
 * sit back to back, the child range is appended as is; otherwise the referenced child
 * rows are gathered in order. NULL lists may hold garbage entries and are skipped.
 */
export class ListAccumulator implements ColumnAccumulator {
  private readonly offsets = new GrowableBytes(4 * (INITIAL_ROWS + 1));
  private readonly validity = new ValidityBuilder();
  length = 0;

  constructor(
    readonly type: List | Map_,
    private readonly child: ColumnAccumulator,
  ) {
    this.resetOffsets();
  }

  get byteLength(): number {
    return this.offsets.length + this.child.byteLength;
  }

  private resetOffsets(): void {
    new Int32Array(this.offsets.bytes.buffer, 0, 1)[0] = 0;
    this.offsets.length = 4;
  }

  append(vector: RawVector, vectorLength: number, rows: RowSelection): void {
    const { count } = rows;
    if (count === 0) return;
    const mask = this.validity.appendFromVector(vector, vectorLength, rows);
    const bytes = vectorBytes(vector, vectorLength * 16);
    const entries = new Uint32Array(bytes.buffer, bytes.byteOffset, vectorLength * 4);

    this.offsets.reserve(count * 4);
    const offsets = new Int32Array(this.offsets.bytes.buffer, 0, (this.offsets.length >> 2) + count);
    let offsetAt = this.offsets.length >> 2;
    const childBase = this.child.length;
    let total = 0;
    let first = -1;
    let expected = -1;
    let contiguous = true;
    for (let i = 0; i < count; i++) {
      const row = sourceRow(rows, i);
      if (mask === null || isBitSet(mask, row)) {
        const offset = entries[row * 4]! + entries[row * 4 + 1]! * TWO_TO_32;
        const length = entries[row * 4 + 2]! + entries[row * 4 + 3]! * TWO_TO_32;
        if (length > 0) {
          if (first < 0) first = offset;
          else if (offset !== expected) contiguous = false;
          expected = offset + length;
          total += length;
        }
      }
      offsets[offsetAt++] = childBase + total;
    }
    if (childBase + total > 0x7fffffff) throw new Error('a list column exceeds 2^31 child values in one batch');
    this.offsets.length = offsetAt * 4;
    this.length += count;
    if (total === 0) return;

    const child = listChild(vector);
    const childLength = listChildLength(vector);
    if (contiguous) {
      this.child.append(child, childLength, rowRange(first, total));
      return;
    }
    const gathered = new Uint32Array(total);
    let at = 0;
    for (let i = 0; i < count; i++) {
      const row = sourceRow(rows, i);
      if (mask !== null && !isBitSet(mask, row)) continue;
      const offset = entries[row * 4]! + entries[row * 4 + 1]! * TWO_TO_32;
      const length = entries[row * 4 + 2]! + entries[row * 4 + 3]! * TWO_TO_32;
      for (let j = 0; j < length; j++) gathered[at++] = offset + j;
    }
    this.child.append(child, childLength, rowIndexes(gathered));
  }

  finish(): Data {
    const offsetBytes = this.offsets.take();
    this.resetOffsets();
    const { nullBitmap, nullCount } = this.validity.finish();
    const length = this.length;
    this.length = 0;
    const valueOffsets = new Int32Array(offsetBytes.buffer, offsetBytes.byteOffset, length + 1);
    const child = this.child.finish();
    return makeData({ type: this.type, length, nullCount, nullBitmap, valueOffsets, child } as never);
  }
}
