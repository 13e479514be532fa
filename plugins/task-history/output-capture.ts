import type { RecordBatch } from 'apache-arrow';
import { batchesInMemory } from '../../core/engine/arrow/batches-in-memory.js';
import { encodeJson } from '../../core/http/encoders/index.js';
import type { QueryRequest, QueryResult } from '../../core/pipeline/types.js';

/** Rows kept for `captured_output: truncated`, as Spice keeps them. */
export const TRUNCATED_ROWS = 3;
const STATE_KEY = 'task-history:output';

/**
 * Wraps a result's batch stream to keep its first rows as JSON (the same JSON `/v1/sql`
 * answers) while every batch passes through untouched. Only the first rows are encoded;
 * nothing else is copied or held.
 */
export function captureFirstRows(result: QueryResult, query: QueryRequest, limit = TRUNCATED_ROWS): QueryResult {
  const source = result.batches;
  const schema = result.schema;
  const kept: RecordBatch[] = [];
  let keptRows = 0;
  let saved = false;
  const save = async () => {
    if (saved) return;
    saved = true;
    query.state.set(STATE_KEY, await rowsAsJson(schema, kept));
    // The slices share the batches' buffers: let them go as soon as the text exists.
    kept.length = 0;
  };
  const batches: AsyncIterable<RecordBatch> = {
    [Symbol.asyncIterator]() {
      const iterator = source[Symbol.asyncIterator]();
      return {
        async next() {
          const next = await iterator.next();
          if (next.done) {
            await save();
          } else if (!saved && keptRows < limit) {
            const slice = next.value.slice(0, limit - keptRows);
            kept.push(slice);
            keptRows += slice.numRows;
            if (keptRows >= limit) await save();
          }
          return next;
        },
        async return() {
          await save();
          await iterator.return?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { schema, batches, cacheStatus: result.cacheStatus, headers: result.headers };
}

/** What `captureFirstRows` kept for this query, if the stream got far enough. */
export function capturedRows(query: QueryRequest): string | undefined {
  const value = query.state.get(STATE_KEY);
  return typeof value === 'string' ? value : undefined;
}

async function rowsAsJson(schema: QueryResult['schema'], batches: readonly RecordBatch[]): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of encodeJson({ schema, batches: batchesInMemory(batches) })) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

