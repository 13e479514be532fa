import type { DuckDBConnection } from '@duckdb/node-api';
import { tableFromArrays, type RecordBatch } from 'apache-arrow';
import type { QuarryError } from '../errors/quarry-error.js';
import { openBatchStream } from './arrow/index.js';
import type { DatasetWriteTarget, StagedRows } from './engine-api.js';
import { bindParameters } from './parameters.js';
import type { EngineStream } from './result-stream.js';

/**
 * Writes to a dataset a plugin takes writes for (`setWriteTarget`): the rows of an INSERT or
 * an ingest are staged in a per-connection temp table shaped like the dataset, then handed to
 * the plugin's target, which answers how many it wrote.
 */

/** Where the rows of a write to a dataset with a plugin write target are staged (a per-connection temp table). */
export const STAGED_WRITE = 'temp.main.quarry_routed_write';

/** The staging table, empty, with the columns of `quotedDataset`. */
export async function createStaging(connection: DuckDBConnection, quotedDataset: string): Promise<void> {
  await connection.run(`CREATE OR REPLACE TEMP TABLE quarry_routed_write AS SELECT * FROM ${quotedDataset} LIMIT 0`);
}

/** The staged rows as the write target reads them. */
export function stagedRows(connection: DuckDBConnection): StagedRows {
  return {
    table: STAGED_WRITE,
    rows: async (sql) => (await connection.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>,
    batches: async (sql) => {
      const opened = await openBatchStream(await connection.stream(sql));
      const batches: RecordBatch[] = [];
      for await (const batch of opened.batches) batches.push(batch);
      return { schema: opened.schema, batches };
    },
  };
}

/** Runs an INSERT into the staging table, hands the rows to the write target, answers the count it wrote. */
export async function executeRouted(target: DatasetWriteTarget, run: {
  prepared: Awaited<ReturnType<DuckDBConnection['prepare']>>;
  connection: DuckDBConnection;
  parameters: readonly unknown[];
  signal: AbortSignal;
  finish: (discard: boolean) => void;
  mapError: (error: unknown) => QuarryError;
}): Promise<EngineStream> {
  const started = performance.now();
  const onAbort = () => run.connection.interrupt();
  run.signal.addEventListener('abort', onAbort, { once: true });
  try {
    bindParameters(run.prepared, run.parameters);
    await run.prepared.run();
    const rows = await target.write(stagedRows(run.connection), run.signal);
    const executionMs = performance.now() - started;
    const table = tableFromArrays({ Count: BigInt64Array.of(BigInt(rows)) });
    return {
      schema: table.schema,
      batches: (async function* () {
        yield* table.batches;
      })(),
      executionMs: () => executionMs,
    };
  } catch (error) {
    throw run.mapError(error);
  } finally {
    run.signal.removeEventListener('abort', onAbort);
    const dropped = await run.connection.run(`DROP TABLE IF EXISTS ${STAGED_WRITE}`).then(() => true, () => false);
    run.finish(run.signal.aborted || !dropped);
  }
}
