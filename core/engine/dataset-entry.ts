import type { DuckDBConnection } from '@duckdb/node-api';
import type { DatasetConfig } from '../manifest/types.js';
import type { LastLoad, LoadProgress } from './load-progress.js';
import type { DatasetState, DatasetStatus } from './engine-api.js';
import type { FetchSource, EngineSource } from './sources/connector.js';
import { quoteIdentifier } from './sql-text.js';
import type { RefreshSchedule } from './acceleration/refresh-scheduler.js';

/**
 * One dataset as the registry (datasets.ts) keeps it, and the small pure helpers around it:
 * its table references, its status and refresh schedule as others see them, and the
 * statement wrappers its loads use.
 */

export interface DatasetEntry {
  readonly config: DatasetConfig;
  state: DatasetState;
  error: string | undefined;
  loadedAt: string | undefined;
  source: EngineSource | undefined;
  /** Where an accelerated dataset's rows live. */
  accelerationTable: TableRef | undefined;
  refreshing: Promise<void> | undefined;
  /** Whether the first load has happened (until then the name is a view reading the source). */
  viewReadsTable: boolean;
  /** File mode: the acceleration file already held the table at start-up, and it is served. */
  servedFromFile: boolean;
  /** Its view exists: queries may name it. */
  registered: boolean;
  /**
   * A fetch dataset whose columns did not come within start-up's grace: registered when they
   * do, then loaded and scheduled on its own (not by the start-up loads).
   */
  late: { source: FetchSource; attachedTable: TableRef | undefined } | undefined;
  /** `refresh_sql` set over HTTP (PATCH .../acceleration): used instead of the manifest's until restart. */
  refreshSqlOverride: string | undefined;
  /**
   * Accelerated: the connection its loads and refreshes run on, made before lockdown with the
   * engine's progress tracking on (a setting lockdown freezes). One per dataset: a dataset
   * never runs two loads at once.
   */
  loadConnection: DuckDBConnection | undefined;
  /** Whether its source is a connector's fetch (counted as it comes) rather than files the engine reads. */
  fetched: boolean;
  /** The load or refresh running now. */
  progress: LoadProgress | undefined;
  /** The last one that finished. */
  lastLoad: LastLoad | undefined;
}

export type RunStatement = (sql: string) => Promise<void>;

/** A table by its parts (unquoted) and as SQL text (quoted). */
export interface TableRef {
  readonly catalog: string;
  readonly schema: string;
  readonly name: string;
  readonly sql: string;
}

export function tableRef(catalog: string, schema: string, name: string): TableRef {
  return { catalog, schema, name, sql: [catalog, schema, name].map(quoteIdentifier).join('.') };
}

export function isAccelerated(config: DatasetConfig): boolean {
  return config.acceleration?.enabled === true;
}

export async function inTransaction(run: RunStatement, work: () => Promise<void>): Promise<void> {
  await run('BEGIN TRANSACTION');
  try {
    await work();
    await run('COMMIT');
  } catch (error) {
    await run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export async function ensureSchema(run: RunStatement, name: string): Promise<void> {
  const dot = name.indexOf('.');
  if (dot > 0) await run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(name.slice(0, dot))}`);
}

export function scheduleOf(entry: DatasetEntry): { schedule: RefreshSchedule; failedFirst: boolean } {
  return {
    schedule: {
      dataset: entry.config.name,
      intervalMs: entry.config.acceleration?.refresh_check_interval,
      retryEnabled: entry.config.acceleration?.refresh_retry_enabled ?? true,
      maxAttempts: entry.config.acceleration?.refresh_retry_max_attempts,
    },
    failedFirst: entry.state === 'error' || entry.error !== undefined,
  };
}

export function toStatus(entry: DatasetEntry, waitingFor: string | undefined): DatasetStatus {
  return {
    waitingFor,
    name: entry.config.name,
    from: entry.config.from,
    description: entry.config.description,
    state: entry.state,
    error: entry.error,
    accelerated: isAccelerated(entry.config),
    acceleration: entry.config.acceleration,
    loadedAt: entry.loadedAt,
    progress: entry.progress?.snapshot(),
    lastLoad: entry.lastLoad,
    servedFromSource: servedFromSource(entry),
  };
}

/** An accelerated dataset whose first load has not happened: its name still reads the source. */
export function servedFromSource(entry: DatasetEntry): boolean {
  return entry.registered && isAccelerated(entry.config) && !entry.viewReadsTable;
}
