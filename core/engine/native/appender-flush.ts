import type { DuckDBAppender } from '@duckdb/node-api';
import { loadDuckDBHelper, type DuckDBHelperAddon } from './native-addon.js';

/**
 * Flushes a DuckDB appender on a worker thread (native/duckdb-appender-flush.c). The bindings'
 * `flushSync` runs on the JS thread, and DuckDB's flush costs about a millisecond however few
 * rows it writes: task history's every 100 ms under load, a cluster merge's once per query,
 * each blocking every other request meanwhile.
 */
interface AppenderFlushAddon extends DuckDBHelperAddon {
  flush(appender: unknown): Promise<void>;
}

let addon: AppenderFlushAddon | undefined;

/** Loads the helper now (the engine calls it at start), so a missing build fails start-up rather than the first write. */
export function requireAppenderFlush(): void {
  addon ??= loadAddon();
}

/** Resolves once DuckDB flushed the appender; rejects with DuckDB's message. Use the appender for nothing else until then. */
export function flushAppender(appender: DuckDBAppender): Promise<void> {
  return (addon ??= loadAddon()).flush((appender as unknown as { appender: unknown }).appender);
}

function loadAddon(): AppenderFlushAddon {
  return loadDuckDBHelper<AppenderFlushAddon>('duckdb_appender_flush', 'it writes appended rows off the event loop');
}
