import { Field, Int64, makeBuilder, makeData, RecordBatch, Schema, Struct, Type, type DataType, type Data } from 'apache-arrow';

/**
 * Builds Arrow record batches from JS values column by column, for connectors that read rows
 * (SQL drivers). Values: numbers, bigints, strings, booleans, Uint8Array, Date (for DATE),
 * arrays (for LIST), and for Timestamp columns a bigint of the field's unit (microseconds),
 * so no digit is lost to a JS Date; null for NULL.
 */
export class RecordBatchBuilder {
  readonly #schema: Schema;
  #columns: unknown[][];

  constructor(schema: Schema) {
    this.#schema = schema;
    this.#columns = schema.fields.map(() => []);
  }

  get rowCount(): number {
    return this.#columns[0]?.length ?? 0;
  }

  /** Appends one row, its values in the schema's field order. */
  appendRow(values: readonly unknown[]): void {
    for (let index = 0; index < this.#columns.length; index++) this.#columns[index]!.push(values[index] ?? null);
  }

  /** The rows appended so far as one batch; the builder starts empty again. */
  flush(): RecordBatch {
    const children = this.#schema.fields.map((field, index) => columnData(field, this.#columns[index]!));
    const length = this.rowCount;
    this.#columns = this.#schema.fields.map(() => []);
    const data = makeData({ type: new Struct(this.#schema.fields), length, nullCount: 0, children });
    return new RecordBatch(this.#schema, data);
  }
}

function columnData(field: Field, values: readonly unknown[]): Data {
  if (field.type.typeId === Type.Timestamp) {
    // The Timestamp builder takes milliseconds; build the 64-bit values directly instead.
    const raw = build(new Int64(), values);
    return makeData({ type: field.type, offset: 0, length: raw.length, nullCount: raw.nullCount, nullBitmap: raw.nullBitmap, data: raw.values as BigInt64Array });
  }
  return build(field.type, values);
}

function build(type: DataType, values: readonly unknown[]): Data {
  const builder = makeBuilder({ type, nullValues: [null, undefined] });
  for (const value of values) builder.append(value as never);
  return builder.finish().flush();
}

/** A nullable field with an optional DuckDB type in metadata (see fetch/duckdb-column-types.ts). */
export function sourceField(name: string, type: DataType, duckdbType?: string): Field {
  return new Field(name, type, true, duckdbType ? new Map([['duckdb:type', duckdbType]]) : new Map());
}
