import { makeData, RecordBatch, Struct, vectorFromArray, type Data, type DataType, type Schema } from 'apache-arrow';

/**
 * Builds one RecordBatch of a fixed schema from plain column arrays (null = SQL NULL).
 * Metadata results are a few hundred rows at most, so clarity beats speed here.
 */
export function recordBatchOf(schema: Schema, columns: Record<string, readonly unknown[]>, length: number): RecordBatch {
  const children: Data[] = schema.fields.map((field) => {
    const values = columns[field.name] ?? Array.from({ length }, () => null);
    if (values.length !== length) throw new Error(`column ${field.name} has ${values.length} values, expected ${length}`);
    return vectorFromArray(values as unknown[], field.type as DataType).data[0]!;
  });
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }));
}
