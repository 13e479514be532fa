import type { RecordBatch, Schema } from 'apache-arrow';

/** What every encoder consumes: the schema first, then the batches as they arrive. */
export interface EncoderInput {
  readonly schema: Schema;
  readonly batches: AsyncIterable<RecordBatch>;
}

export interface TextEncoderOptions {
  /** Approximate size of each yielded Buffer (default 256 KiB). */
  readonly chunkBytes?: number;
}
