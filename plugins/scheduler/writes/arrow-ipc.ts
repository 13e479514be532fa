import { Field, Int64, makeData, RecordBatch, Schema, Struct, Table, tableFromIPC, tableToIPC } from 'apache-arrow';
import { alignedBytes } from '../../../core/engine/arrow/aligned-bytes.js';

/** Rows as one Arrow IPC stream (the write log's object format). */
export function toArrowIpc(schema: Schema, batches: readonly RecordBatch[]): Buffer {
  const bytes = tableToIPC(new Table(schema, batches as RecordBatch[]), 'stream');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** An Arrow IPC stream's schema and batches. */
export function fromArrowIpc(body: Buffer): { schema: Schema; batches: RecordBatch[] } {
  // The object store's bytes may sit at any offset of a network buffer.
  const table = tableFromIPC(alignedBytes(body));
  return { schema: table.schema, batches: table.batches };
}

/** The batches with one more Int64 column holding `value` in every row (the order of a write in the log). */
export function withConstantColumn(schema: Schema, batches: readonly RecordBatch[], name: string, value: number): { schema: Schema; batches: RecordBatch[] } {
  const field = new Field(name, new Int64(), false);
  const extended = new Schema([...schema.fields, field], schema.metadata);
  return {
    schema: extended,
    batches: batches.map((batch) => {
      const column = makeData({ type: new Int64(), length: batch.numRows, nullCount: 0, data: new BigInt64Array(batch.numRows).fill(BigInt(value)) });
      return new RecordBatch(extended, makeData({ type: new Struct(extended.fields), length: batch.numRows, nullCount: 0, children: [...batch.data.children, column] }));
    }),
  };
}

export async function* batchesOf(batches: readonly RecordBatch[]): AsyncIterable<RecordBatch> {
  yield* batches;
}
