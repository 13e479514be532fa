import type { DuckDBResult } from '@duckdb/node-api';
import { loadDuckDBHelper, type DuckDBHelperAddon } from './native-addon.js';

/**
 * Whether a streamed DuckDB result ended or failed.
 *
 * `fetchChunk()` answers null both at the end of a streamed result and when the query failed
 * while streaming (the C API keeps the failure in the result; @duckdb/node-bindings does not
 * expose `duckdb_result_error`). Read past a null chunk without asking, a query that fails
 * at row 150,000 looks like a complete result of the rows before it. The helper built from
 * native/ at install reads the result's error from the loaded libduckdb.
 */
interface ResultStatusAddon extends DuckDBHelperAddon {
  failure(result: unknown): [message: string, errorType: number] | null;
}

/** The engine's failure of a streamed result read to its null chunk: its message as DuckDB words it ("Invalid Input Error: boom"). */
export class StreamedResultFailure extends Error {
  readonly errorType: number;
  constructor(message: string, errorType: number) {
    super(message);
    this.name = 'StreamedResultFailure';
    this.errorType = errorType;
  }
}

let addon: ResultStatusAddon | undefined;

/** Loads the helper now (the engine calls it at start), so a missing build fails start-up rather than the first query. */
export function requireResultStatus(): void {
  addon ??= loadAddon();
}

/**
 * Throws the engine's error when `result` failed, returns when it ended. Call it only once a
 * `fetchChunk()` of the result answered null or an empty chunk, and no other fetch is running.
 */
export function throwIfResultFailed(result: DuckDBResult): void {
  const failure = (addon ??= loadAddon()).failure((result as unknown as { result: unknown }).result);
  if (failure !== null) throw new StreamedResultFailure(failure[0], failure[1]);
}

/** Loads the helper bound to the libduckdb of @duckdb/node-bindings; a missing helper is an error, never a silent fallback. */
function loadAddon(): ResultStatusAddon {
  return loadDuckDBHelper<ResultStatusAddon>('duckdb_result_status', 'without it a query that fails while streaming would look complete');
}
