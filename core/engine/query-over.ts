import type { DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch, Schema } from 'apache-arrow';
import type { QuarryError } from '../errors/quarry-error.js';
import { appendBatches } from './append.js';
import type { ConnectionPool } from './connection-pool.js';
import type { BatchInput } from './engine-api.js';
import { columnDefinitions } from './fetch/duckdb-column-types.js';
import { streamResult } from './result-stream.js';
import { quoteIdentifier } from './sql-text.js';

/**
 * Runs `sql` over Arrow inputs (the merge of a cluster's partial results): each input is
 * loaded into a temporary table of its name on one pooled connection, and the tables go with
 * the query, dropped before the connection is reused (or the connection is closed).
 */
export async function queryOverInputs(
  pool: ConnectionPool,
  sql: string,
  inputs: readonly BatchInput[],
  signal: AbortSignal,
  options: { mapError: (error: unknown) => QuarryError; maxValueBytes: number | undefined },
): Promise<{ schema: Schema; batches: AsyncIterable<RecordBatch> }> {
  const connection = await pool.acquire();
  const { mapError } = options;
  const created: string[] = [];
  const release = (discard: boolean) => {
    if (discard || created.length === 0) return pool.release(connection, { discard });
    const drop = async () => {
      for (const name of created) await connection.run(`DROP TABLE IF EXISTS temp.main.${quoteIdentifier(name)}`);
    };
    drop().then(
      () => pool.release(connection),
      () => pool.release(connection, { discard: true }),
    );
  };
  let prepared: Awaited<ReturnType<DuckDBConnection['prepare']>> | undefined;
  try {
    for (const input of inputs) {
      await connection.run(`CREATE OR REPLACE TEMP TABLE ${quoteIdentifier(input.name)} (${columnDefinitions(input.schema, input.name)})`);
      created.push(input.name);
      await appendBatches({ connection, table: { catalog: 'temp', schema: 'main', name: input.name }, schema: input.schema, batches: input.batches, signal, freshTable: true });
    }
    prepared = await connection.prepare(sql);
    const statement = prepared;
    const stream = await streamResult({
      prepared: statement,
      connection,
      signal,
      ...(options.maxValueBytes !== undefined ? { maxValueBytes: options.maxValueBytes } : {}),
      onFinish: (discard) => {
        statement.destroySync();
        release(discard);
      },
      mapError,
      interruptedByRuntime: () => pool.interruptedAll,
    });
    return { schema: stream.schema, batches: stream.batches };
  } catch (error) {
    prepared?.destroySync();
    release(signal.aborted);
    throw mapError(error);
  }
}
