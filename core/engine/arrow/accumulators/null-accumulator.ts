import { makeData, Null, type Data } from 'apache-arrow';
import type { RawVector } from '../duckdb-vectors.js';
import type { RowSelection } from '../row-selection.js';
import type { ColumnAccumulator } from './column-accumulator.js';

/** SQLNULL → Null: no buffers, only a length. */
export class NullAccumulator implements ColumnAccumulator {
  readonly type = new Null();
  readonly byteLength = 0;
  length = 0;

  append(_vector: RawVector, _vectorLength: number, rows: RowSelection): void {
    this.length += rows.count;
  }

  finish(): Data {
    const length = this.length;
    this.length = 0;
    return makeData({ type: this.type, length });
  }
}
