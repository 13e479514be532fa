import type { DuckDBConnection } from '@duckdb/node-api';
import { Schema, type RecordBatch } from 'apache-arrow';
import { appendBatches } from '../append.js';
import type { FetchSource, ScanRequest } from '../sources/connector.js';
import type { LoadProgressSink } from '../load-progress.js';

/**
 * Reads a fetch source into an existing table through DuckDB's appender, one transaction.
 * The table has every column of the dataset; columns the request leaves out stay NULL.
 */
export async function scanIntoTable(options: {
  connection: DuckDBConnection;
  source: FetchSource;
  schema: Schema;
  request: ScanRequest;
  table: { catalog: string; schema: string; name: string };
  /** A load's progress: each batch's rows and Arrow bytes as it arrives. */
  progress?: LoadProgressSink;
}): Promise<number> {
  const { request } = options;
  // Batches hold the requested columns in the request's order.
  const fields = request.columns
    ? request.columns.map((name) => options.schema.fields.find((field) => field.name.toLowerCase() === name.toLowerCase())!)
    : options.schema.fields;
  return appendBatches({
    connection: options.connection,
    table: options.table,
    schema: new Schema(fields),
    batches: checkedBatches(options.source.scan(request), fields.length, options.progress),
    signal: request.signal,
  });
}

/** Holds the source to its contract: every batch has exactly the columns asked for. */
async function* checkedBatches(batches: AsyncIterable<RecordBatch>, columns: number, progress: LoadProgressSink | undefined): AsyncIterable<RecordBatch> {
  for await (const batch of batches) {
    if (batch.numCols !== columns) throw new Error(`the connector returned a batch of ${batch.numCols} columns where ${columns} were asked for`);
    progress?.read(batch.numRows, batch.data.byteLength);
    yield batch;
  }
}
