import { makeData, RecordBatch, Struct, type Data, type DataType, type Schema } from 'apache-arrow';

type Values = Uint32Array | Float64Array | Uint8Array;

/**
 * A growing column of fixed-width values, `perRow` array elements a row: 64-bit integers are
 * written as two 32-bit words (little-endian), so no BigInt is made for a row. The owner grows
 * every column at once (`ensure`) and writes `values` at the row's index.
 */
export class FixedColumn<T extends Values> {
  values: T;
  readonly #make: (size: number) => T;
  readonly #perRow: number;

  constructor(make: (size: number) => T, perRow = 1, initialRows = 256) {
    this.#make = make;
    this.#perRow = perRow;
    this.values = make(initialRows * perRow);
  }

  /** Room for `rows` rows, keeping the values written so far. */
  ensure(rows: number): void {
    const needed = rows * this.#perRow;
    if (needed <= this.values.length) return;
    const larger = this.#make(Math.max(needed, this.values.length * 2));
    larger.set(this.values as never);
    this.values = larger;
  }

  /** The first `length` rows as Arrow data of `type`, never null (a view of this column's memory). */
  data<D extends DataType>(type: D, length: number): Data<D> {
    const ArrayType = (type as unknown as { ArrayType: { new (buffer: ArrayBufferLike, offset: number, length: number): ArrayBufferView; BYTES_PER_ELEMENT: number } }).ArrayType;
    const elements = (length * this.#perRow * this.values.BYTES_PER_ELEMENT) / ArrayType.BYTES_PER_ELEMENT;
    const view = new ArrayType(this.values.buffer, this.values.byteOffset, elements);
    return makeData({ type, length, nullCount: 0, data: view } as never) as unknown as Data<D>;
  }
}

/** A column of 64-bit integers (BIGINT, UBIGINT, timestamps), as two words a row. */
export const int64Column = (initialRows?: number) => new FixedColumn((size) => new Uint32Array(size), 2, initialRows);
export const float64Column = () => new FixedColumn((size) => new Float64Array(size));
export const byteColumn = () => new FixedColumn((size) => new Uint8Array(size));

const TWO_TO_32 = 4294967296;

/** An integer (|value| < 2^53) as a signed 64-bit integer's two little-endian words at `row`. */
export function writeInt64(words: Uint32Array, row: number, value: number): void {
  const high = Math.floor(value / TWO_TO_32);
  words[2 * row] = value - high * TWO_TO_32;
  words[2 * row + 1] = high;
}

/** Columns' data as one record batch of `schema` (views: valid as long as the columns are). */
export function recordBatchOf(schema: Schema, length: number, children: Data[]): RecordBatch {
  const struct = makeData({ type: new Struct(schema.fields), length, nullCount: 0, children } as never) as unknown as Data<Struct>;
  return new RecordBatch(schema, struct);
}
