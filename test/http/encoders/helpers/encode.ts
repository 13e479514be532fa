import type { DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch, Schema } from 'apache-arrow';
import { streamRecordBatches, type StreamOptions } from '../../../../core/engine/arrow/index.js';
import type { EncoderInput } from '../../../../core/http/encoders/types.js';

/** The encoder input for a query, as the engine produces it. */
export async function inputFor(connection: DuckDBConnection, sql: string, options?: StreamOptions): Promise<EncoderInput> {
  return streamRecordBatches(await connection.stream(sql), options);
}

/** An encoder input over batches already in memory. */
export function inputOf(schema: Schema, batches: readonly RecordBatch[]): EncoderInput {
  return {
    schema,
    batches: (async function* () {
      yield* batches;
    })(),
  };
}

export async function concat(chunks: AsyncIterable<Buffer>): Promise<{ body: Buffer; sizes: number[] }> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return { body: Buffer.concat(parts), sizes: parts.map((part) => part.length) };
}
