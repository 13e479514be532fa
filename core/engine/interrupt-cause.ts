import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import { StatementType } from './duckdb-api.js';
import { throwIfResultFailed } from './native/result-status.js';

const INTERRUPT = /^INTERRUPT Error:/;

/** Whether an engine error is DuckDB's "Interrupted!". */
function isEngineInterrupt(error: unknown): boolean {
  return error instanceof Error && INTERRUPT.test(error.message);
}

/**
 * DuckDB 1.5 can report a query that failed on one of its worker threads while no fetch was
 * running (the client busy, e.g. encoding the previous batch) as "INTERRUPT Error: Interrupted!":
 * the failing task raises the interrupt flag for its siblings, and the buffered result checks
 * that flag before the executor's error. Seen about once in 40 runs of a query failing at row
 * 5,000,000 of 10,000,000 on a machine with every core busy. When nothing here interrupted
 * the query, that is a failure, not a cancellation the caller asked for.
 *
 * The engine's own message is what the caller needs (a bad cast, a missing file, error()), so a
 * read-only statement is run once more with its rows read and dropped: a failure that depends
 * on the data fails again, now read by a client that is always fetching, with its message. The
 * second run is bounded like the first (the query's signal interrupts it). A statement that
 * writes is never run twice; nor is one whose second run succeeds or is interrupted again
 * reported as anything but the engine error saying what it kept.
 */
export async function engineErrorBehindInterrupt(error: unknown, prepared: DuckDBPreparedStatement, signal: AbortSignal): Promise<unknown> {
  if (!isEngineInterrupt(error)) return error;
  const kept = new Error('Engine Error: the query failed on one of the engine\'s threads, and the engine kept only that it stopped the query ("Interrupted!"); nothing cancelled it. Run it again to see the engine\'s own error', { cause: error });
  if (signal.aborted || prepared.statementType !== StatementType.SELECT) return kept;
  try {
    const result = await prepared.stream();
    for (;;) {
      if (signal.aborted) return kept;
      const chunk = await result.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) {
        throwIfResultFailed(result);
        return kept;
      }
    }
  } catch (again) {
    return isEngineInterrupt(again) || signal.aborted ? kept : again;
  }
}
