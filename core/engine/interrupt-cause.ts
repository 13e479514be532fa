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
 * reruns are bounded like the first run (the query's signal interrupts them). A statement that
 * writes is never run twice; nor is one whose rerun succeeds, or that is interrupted on every
 * rerun, reported as anything but the engine error saying what it kept.
 */
export async function engineErrorBehindInterrupt(error: unknown, prepared: DuckDBPreparedStatement, signal: AbortSignal): Promise<unknown> {
  if (!isEngineInterrupt(error)) return error;
  const kept = new Error('Engine Error: the query failed on one of the engine\'s threads, and the engine kept only that it stopped the query ("Interrupted!"); nothing cancelled it. Run it again to see the engine\'s own error', { cause: error });
  if (signal.aborted || prepared.statementType !== StatementType.SELECT) return kept;
  for (let run = 0; run < RERUNS; run++) {
    const outcome = await rerun(prepared, signal);
    if (outcome === NO_ERROR || signal.aborted) return kept;
    if (!isEngineInterrupt(outcome)) return outcome;
  }
  return kept;
}

/**
 * A rerun, with a client always fetching, still meets the race now and then (1 in 200 reruns
 * of the query failing at row 5,000,000, with both cores busy), so an interrupted rerun is
 * tried again, up to this many reruns. Only a failing read-only query pays for them.
 */
const RERUNS = 3;

const NO_ERROR = Symbol('no engine error');

/** Runs the statement once more, dropping its rows: its error, or NO_ERROR when it ran out or was stopped. */
async function rerun(prepared: DuckDBPreparedStatement, signal: AbortSignal): Promise<unknown> {
  try {
    const result = await prepared.stream();
    for (;;) {
      if (signal.aborted) return NO_ERROR;
      const chunk = await result.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) {
        throwIfResultFailed(result);
        return NO_ERROR;
      }
    }
  } catch (again) {
    return again;
  }
}
