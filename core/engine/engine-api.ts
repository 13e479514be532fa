import type { LastLoad, LoadProgressStatus } from './load-progress.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch, Schema } from 'apache-arrow';
import type { AccelerationConfig } from '../manifest/types.js';
import type { RefreshOverrides } from './acceleration/refresh-options.js';
import type { Principal } from '../pipeline/types.js';
import type { SandboxApi } from './sandbox.js';
import type { ViewStatus } from './views.js';

export type { ViewStatus } from './views.js';

/**
 * Load states of a dataset, numbered as the `dataset_load_state` metric reports them:
 * 0 initializing, 1 ready, 2 disabled, 3 error, 4 refreshing, 5 shutting down.
 */
export type DatasetState = 'initializing' | 'ready' | 'disabled' | 'error' | 'refreshing' | 'shutting_down';

export const DATASET_STATE_NUMBER: Record<DatasetState, number> = {
  initializing: 0,
  ready: 1,
  disabled: 2,
  error: 3,
  refreshing: 4,
  shutting_down: 5,
};

/** What `GET /v1/datasets` reports for one dataset. */
export interface DatasetStatus {
  readonly name: string;
  readonly from: string;
  readonly description: string | undefined;
  readonly state: DatasetState;
  /** Why the last load or refresh failed; undefined when it did not. */
  readonly error: string | undefined;
  readonly accelerated: boolean;
  readonly acceleration: AccelerationConfig | undefined;
  /** When data was last loaded (accelerated) or registered (live), ISO-8601. */
  readonly loadedAt: string | undefined;
  /**
   * What the dataset waits for before it can be registered (its source's columns, or the next
   * attempt to read them); undefined once it is registered.
   */
  readonly waitingFor: string | undefined;
  /** The load or refresh running now: rows and bytes so far, totals, rate, ETA. */
  readonly progress: LoadProgressStatus | undefined;
  /** The last load or refresh that finished: rows written, bytes read, duration. */
  readonly lastLoad: LastLoad | undefined;
  /** Accelerated, but its first load has not finished: queries naming it read the source. */
  readonly servedFromSource: boolean;
}

/** The engine as plugins see it. */
export interface EngineApi {
  /** Where user SQL's reach ends: tables only the runtime reads, caller-scoped views, extension hints. */
  readonly sandbox: SandboxApi;
  datasets(): DatasetStatus[];
  dataset(name: string): DatasetStatus | undefined;
  /** The manifest's `views:`, each with what it reads and whether queries may name it yet. */
  views(): ViewStatus[];
  /**
   * Refreshes an accelerated dataset (atomic swap, or an append) and fires `cache.invalidate`.
   * `overrides` replace the dataset's `refresh_sql` / `refresh_mode` for this refresh only.
   */
  refresh(name: string, overrides?: RefreshOverrides): Promise<DatasetStatus>;
  /** Replaces an accelerated dataset's `refresh_sql` for every later refresh, until restart. */
  setRefreshSql(name: string, refreshSql: string): DatasetStatus;
  /**
   * The normalised logical plan of a statement text (DuckDB's `json_serialize_plan` without
   * source positions), planned on a connection of its own; nothing runs. Throws what binding throws.
   */
  logicalPlan(sql: string): Promise<string>;
  /**
   * Runs SQL as the runtime itself, outside the user policy and the query pipeline: for
   * system tables a plugin owns (e.g. `CREATE SCHEMA runtime`, inserting task-history rows).
   * Returns the rows as plain objects (keep results small). Never pass user SQL here.
   */
  runInternal(sql: string, parameters?: readonly unknown[], options?: InternalRunOptions): Promise<Array<Record<string, unknown>>>;
  /**
   * Runs SQL as the runtime over Arrow batches a plugin holds: each input is first loaded into
   * a temporary table of the query's connection, named `input.name` (e.g. a cluster scheduler
   * combining its executors' partial aggregates). The result streams as Arrow: read it to the
   * end or `return()` it; the inputs are dropped then. Aborting `signal` interrupts it. Never
   * pass user SQL here.
   */
  queryOver(sql: string, inputs: readonly BatchInput[], signal: AbortSignal): Promise<{ schema: Schema; batches: AsyncIterable<RecordBatch> }>;
  /**
   * Runs `initializer` on every engine connection queries use (DuckDB registers JS functions
   * per connection): e.g. `connection.registerScalarFunction(...)`. Register in `startup`.
   */
  addConnectionInitializer(initializer: (connection: DuckDBConnection) => Promise<void>): void;
  /**
   * Hands the writes of one dataset to a plugin (e.g. a cluster scheduler sending rows to the
   * executors that own them). The core's checks still apply (a caller that may write, the
   * dataset's `access: read_write`); the engine stages the rows of an INSERT or an ingest in a
   * temporary table and calls `target.write`, then fires `cache.invalidate`. Set in `startup`.
   */
  setWriteTarget(dataset: string, target: DatasetWriteTarget): void;
  /**
   * Appends Arrow batches to a writable accelerated dataset, as a Flight ingest does (the same
   * checks: `access: read_write`, a caller that may write; keyed datasets merge by
   * `on_conflict`), in one transaction, then fires `cache.invalidate`.
   */
  append(dataset: string, schema: Schema, batches: AsyncIterable<RecordBatch>, options: { principal: Principal; signal: AbortSignal }): Promise<{ rows: number }>;
  /**
   * Appends Arrow batches to a table a plugin owns (created with `runInternal` in the default
   * database), columns matched by name, in one transaction. Not for datasets: see `append`.
   * `exactColumns`: the batches have exactly the table's columns, in its order, so nothing is
   * looked up: for a plugin writing small batches often (task history).
   */
  appendToTable(table: { schema: string; name: string }, schema: Schema, batches: AsyncIterable<RecordBatch>, signal: AbortSignal, options?: { exactColumns?: boolean }): Promise<number>;
}

export interface InternalRunOptions {
  /**
   * Default true: live datasets the SQL names are read first, as for a query. False leaves them
   * empty (typed, no rows): for SQL that only inspects a statement's text or columns, e.g.
   * `SELECT json_serialize_sql('...')` or `DESCRIBE ...`, which then costs no remote read.
   */
  readonly readLive?: boolean;
}

/** Arrow batches loaded into a temporary table `name` for `queryOver`. */
export interface BatchInput {
  /** A plain identifier, unique in the query (e.g. `quarry_partials`). */
  readonly name: string;
  readonly schema: Schema;
  readonly batches: AsyncIterable<RecordBatch>;
}

/** Where a plugin sends the rows written to a dataset it serves. */
export interface DatasetWriteTarget {
  /** Writes every staged row or throws (the statement then fails); resolves to the rows written. */
  write(staged: StagedRows, signal: AbortSignal): Promise<number>;
}

/** Rows of one write, staged in a temporary table readable only through these methods. */
export interface StagedRows {
  /** The table's SQL name, to use in `rows` / `batches` queries, e.g. `temp.main.quarry_routed_write`. */
  readonly table: string;
  /** Runs SQL over the staged rows (e.g. their partitions); rows as plain objects. */
  rows(sql: string): Promise<Array<Record<string, unknown>>>;
  /** Runs SQL over the staged rows and returns the result as Arrow (one call at a time: they share a connection). */
  batches(sql: string): Promise<{ schema: Schema; batches: RecordBatch[] }>;
}
