import type { DuckDBConnection } from '@duckdb/node-api';
import { type RecordBatch, type Schema } from 'apache-arrow';
import type { ExecutionContext } from 'ava';
import { streamRecordBatches, type StreamOptions } from '../../../../core/engine/arrow/index.js';
import { arrowValueToPlain, duckValueToPlain, type Plain } from './plain-values.js';

export async function collect(connection: DuckDBConnection, sql: string, options?: StreamOptions): Promise<{ schema: Schema; batches: RecordBatch[] }> {
  const { schema, batches } = streamRecordBatches(await connection.stream(sql), options);
  const collected: RecordBatch[] = [];
  for await (const batch of batches) collected.push(batch);
  return { schema, batches: collected };
}

/** Every cell of every batch, in plain form, row-major. */
export function arrowRows(batches: readonly RecordBatch[]): Plain[][] {
  const rows: Plain[][] = [];
  for (const batch of batches) {
    const columns = batch.data.children;
    for (let r = 0; r < batch.numRows; r++) rows.push(columns.map((column) => arrowValueToPlain(column, r)));
  }
  return rows;
}

/** Runs `sql` through node-api's own reader and through our batches; asserts equal cells. */
export async function assertMatchesDuckDB(t: ExecutionContext, connection: DuckDBConnection, sql: string, options?: StreamOptions): Promise<RecordBatch[]> {
  const reference = await connection.run(sql);
  const types = reference.columnTypes();
  const names = reference.columnNames();
  const expected = (await reference.getRows()).map((row) => row.map((value, c) => duckValueToPlain(value, types[c]!)));
  const { schema, batches } = await collect(connection, sql, options);
  t.deepEqual(schema.fields.map((field) => field.name), names);
  const actual = arrowRows(batches);
  t.is(actual.length, expected.length, 'row count');
  // Compare column by column so a failure names the column and the first row that differs.
  for (let c = 0; c < names.length; c++) {
    const mismatch = expected.findIndex((row, r) => JSON.stringify(row[c]) !== JSON.stringify(actual[r]?.[c]));
    if (mismatch >= 0) {
      t.deepEqual(actual[mismatch]?.[c], expected[mismatch]![c], `column ${names[c]} (${String(types[c])}) row ${mismatch}`);
    }
  }
  return batches;
}
