import type { RecordBatch } from 'apache-arrow';

/** Batches held in memory as the async iterable the encoders, the Flight sender and the engine take. */
export async function* batchesInMemory(batches: readonly RecordBatch[]): AsyncGenerator<RecordBatch> {
  yield* batches;
}
