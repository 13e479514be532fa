import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBDataChunk } from './duckdb-api.js';
import type { RecordBatch, Schema } from 'apache-arrow';
import { QuarryError } from '../errors/quarry-error.js';
import { writeColumnDirect } from './append-direct.js';
import { duckdbValuesFor } from './arrow-to-duckdb-values.js';
import { flushAppender } from './native/appender-flush.js';

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

/**
 * Appends Arrow batches to a table through DuckDB's appender, matching columns by name
 * (case-insensitive). Columns the batches lack get the table's default (NULL unless set).
 * One transaction: either every row lands or none does.
 */
export async function appendBatches(options: {
  connection: DuckDBConnection;
  table: { catalog: string; schema: string; name: string };
  schema: Schema;
  batches: AsyncIterable<RecordBatch>;
  signal: AbortSignal;
  /**
   * The caller just created the table with exactly the schema's columns, in order, and drops it
   * if the append fails: no column lookup and no transaction (three engine calls fewer, which
   * matters to a small per-query table such as a cluster merge's partial results).
   */
  freshTable?: boolean;
  /**
   * The batches have exactly the table's columns, in order: no column lookup (~2 ms of the
   * engine: `duckdb_columns()`), still one transaction, whose commit runs on the engine's
   * threads (without one, the appender's flush commits on the thread that runs it).
   */
  exactColumns?: boolean;
}): Promise<number> {
  const { connection, table } = options;
  const fresh = options.freshTable === true;
  const exact = fresh || options.exactColumns === true;
  const appender = await connection.createAppender(table.name, table.schema, table.catalog);
  const columnCount = appender.columnCount;
  const targetTypes = Array.from({ length: columnCount }, (_, index) => appender.columnType(index));
  const targetNames = exact ? options.schema.fields.map((field) => field.name) : await columnNames(connection, table);
  const sourceIndexes = exact ? targetNames.map((_, index) => index) : mapColumns(options.schema, targetNames, table.name);
  let rows = 0;
  if (!fresh) await connection.run('BEGIN TRANSACTION');
  try {
    for await (const batch of options.batches) {
      options.signal.throwIfAborted();
      for (let start = 0; start < batch.numRows; start += CHUNK_ROWS) {
        const count = Math.min(CHUNK_ROWS, batch.numRows - start);
        const chunk = DuckDBDataChunk.create(targetTypes, count);
        targetNames.forEach((name, column) => {
          const source = sourceIndexes[column];
          const vector = source === undefined ? undefined : batch.getChildAt(source)!;
          if (vector && writeColumnDirect(chunk, column, vector, start, count, targetTypes[column]!, name)) return;
          const values = vector === undefined
            ? new Array(count).fill(null)
            : duckdbValuesFor(vector, start, count, targetTypes[column]!, name);
          chunk.setColumnValues(column, values);
        });
        appender.appendDataChunk(chunk);
        rows += count;
      }
    }
    // On a worker thread: DuckDB's flush takes about a millisecond however few rows it writes
    // (and commits, without a transaction), which would block every other request.
    await flushAppender(appender);
    appender.closeSync();
    if (!fresh) await connection.run('COMMIT');
  } catch (error) {
    try {
      appender.closeSync();
    } catch {
      // already closed, or failed with the same error
    }
    if (!fresh) await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return rows;
}

async function columnNames(connection: DuckDBConnection, table: { catalog: string; schema: string; name: string }): Promise<string[]> {
  const reader = await connection.runAndReadAll(
    'SELECT column_name FROM duckdb_columns() WHERE database_name = $1 AND schema_name = $2 AND table_name = $3 ORDER BY column_index',
    [table.catalog, table.schema, table.name],
  );
  return reader.getRows().map((row) => String(row[0]));
}

/** For each table column, the index of the batch column with that name. */
function mapColumns(schema: Schema, targetNames: readonly string[], tableName: string): Array<number | undefined> {
  const byName = new Map(schema.fields.map((field, index) => [field.name.toLowerCase(), index]));
  const unknown = schema.fields.map((field) => field.name).filter((name) => !targetNames.some((target) => target.toLowerCase() === name.toLowerCase()));
  if (unknown.length > 0) {
    throw new QuarryError('INGEST_SCHEMA_MISMATCH', `dataset ${tableName} has no column${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}; its columns are ${targetNames.join(', ')}`);
  }
  return targetNames.map((name) => byName.get(name.toLowerCase()));
}
