import type { DuckDBResult } from '@duckdb/node-api';
import type { RecordBatch, Schema } from 'apache-arrow';
import { BatchAssembler, type BatchSizeOptions } from './chunk-to-arrow.js';
import { arrowSchemaForColumns } from './duckdb-to-arrow-type.js';

/** A query result as Arrow: the schema up front, then the batches as they are produced. */
export interface ArrowBatchStream {
  readonly schema: Schema;
  /** Readable once. Breaking out of the loop stops fetching from DuckDB. */
  readonly batches: AsyncIterable<RecordBatch>;
}

export interface StreamOptions extends BatchSizeOptions {
  /** Stops fetching when aborted; the iteration then throws the signal's reason. */
  readonly signal?: AbortSignal;
}

/** The Arrow schema of a DuckDB result (column names as DuckDB gives them, even if repeated). */
export function arrowSchemaFor(result: DuckDBResult): Schema {
  return arrowSchemaForColumns(result.columnNames(), result.columnTypes());
}

/**
 * Streams a DuckDB result (`connection.stream(sql)`, `prepared.stream()`, or a
 * materialised `run()` result) as Arrow record batches.
 *
 * The schema is available at once; fetching starts with the first `next()`. Errors raised
 * by DuckDB while fetching (most runtime errors of a streaming query) surface from the
 * iteration. See `openBatchStream` to surface a first-chunk error before answering.
 */
export function streamRecordBatches(result: DuckDBResult, options: StreamOptions = {}): ArrowBatchStream {
  const schema = arrowSchemaFor(result);
  return { schema, batches: batchesOf(result, schema, options, null) };
}

/**
 * Like `streamRecordBatches`, but fetches the first chunk before resolving, so a query
 * that fails immediately rejects here, before a caller has committed to a response status.
 */
export async function openBatchStream(result: DuckDBResult, options: StreamOptions = {}): Promise<ArrowBatchStream> {
  const schema = arrowSchemaFor(result);
  options.signal?.throwIfAborted();
  const first = await result.fetchChunk();
  return { schema, batches: batchesOf(result, schema, options, { chunk: first }) };
}

async function* batchesOf(
  result: DuckDBResult,
  schema: Schema,
  options: StreamOptions,
  prefetched: { chunk: Awaited<ReturnType<DuckDBResult['fetchChunk']>> } | null,
): AsyncGenerator<RecordBatch, void, undefined> {
  const assembler = new BatchAssembler(schema, result.columnTypes(), options);
  const { signal } = options;
  // One fetch always in flight: DuckDB produces the next chunk on its own threads while
  // this one is copied and its batches consumed (encoded, written) on the JS thread.
  let next: Promise<Awaited<ReturnType<DuckDBResult['fetchChunk']>>> = prefetched !== null ? Promise.resolve(prefetched.chunk) : result.fetchChunk();
  try {
    for (;;) {
      signal?.throwIfAborted();
      const chunk = await next;
      if (chunk === null || chunk.rowCount === 0) break;
      next = result.fetchChunk();
      yield* assembler.append(chunk);
    }
  } finally {
    // When the consumer stops early, wait for the fetch still in flight (its failure, e.g.
    // an interrupt, is of no interest now): the caller may hand the connection to the
    // next query as soon as this returns.
    await next.catch(() => undefined);
  }
  const tail = assembler.flush();
  if (tail !== null) yield tail;
}
