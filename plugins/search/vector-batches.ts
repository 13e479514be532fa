import { Field, FixedSizeList, Float32, Int32, makeData, RecordBatch, Schema, Struct, Uint64, Utf8, vectorFromArray } from 'apache-arrow';

/** One embedded chunk, on its way to a column's vector table. */
export interface EmbeddedChunk {
  readonly textHash: bigint;
  readonly chunk: number;
  readonly text: string;
  readonly vector: Float32Array;
}

/** The Arrow schema of a vector table (text_hash, chunk, chunk_text, vector FLOAT[n]): appended as is. */
export function vectorSchema(dimensions: number): Schema {
  return new Schema([
    new Field('text_hash', new Uint64(), false),
    new Field('chunk', new Int32(), false),
    new Field('chunk_text', new Utf8(), false),
    new Field('vector', new FixedSizeList(dimensions, new Field('item', new Float32(), false)), false),
  ]);
}

/** Chunks as one record batch; the vectors' floats are laid out back to back, as FLOAT[n] stores them. */
export function vectorBatch(schema: Schema, chunks: readonly EmbeddedChunk[], dimensions: number): RecordBatch {
  const length = chunks.length;
  const floats = new Float32Array(length * dimensions);
  chunks.forEach((chunk, row) => floats.set(chunk.vector, row * dimensions));
  const [hashField, chunkField, textField, vectorField] = schema.fields as [Field<Uint64>, Field<Int32>, Field<Utf8>, Field<FixedSizeList<Float32>>];
  const children = [
    makeData({ type: hashField.type, length, data: BigUint64Array.from(chunks, (chunk) => chunk.textHash) }),
    makeData({ type: chunkField.type, length, data: Int32Array.from(chunks, (chunk) => chunk.chunk) }),
    vectorFromArray(chunks.map((chunk) => chunk.text), textField.type).data[0]!,
    makeData({ type: vectorField.type, length, child: makeData({ type: new Float32(), length: length * dimensions, data: floats }) }),
  ];
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, children }));
}
