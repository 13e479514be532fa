import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBInstance } from './duckdb-api.js';
import { QuarryError } from '../errors/quarry-error.js';
import type { Logger } from '../log.js';
import type { Manifest, ManifestSource } from '../manifest/types.js';
import { formatSizeApproximately } from '../units.js';
import { readOnlyRefusal, type DatasetLoadEvent, type Principal } from '../pipeline/types.js';
import type { RecordBatch, Schema } from 'apache-arrow';
import { appendBatches } from './append.js';
import { classifyPrepared } from './classify.js';
import { EngineSandbox, RUNTIME_CALLER } from './sandbox.js';
import { unpreparedRefusal } from './statement-gate.js';
import { AdminConnection } from './admin-connection.js';
import { ConnectionPool } from './connection-pool.js';
import { DatasetRegistry } from './datasets.js';
import { FetchDatasets } from './fetch/fetch-datasets.js';
import { applyColumnarParams } from './acceleration/columnar-params.js';
import { mergeStatement } from './acceleration/refresh-statements.js';
import type { RefreshOverrides } from './acceleration/refresh-options.js';
import { RefreshScheduler, isUnbindableRefresh } from './acceleration/refresh-scheduler.js';
import type { ConnectorRegistry } from './sources/connector-registry.js';
import type { BatchInput, DatasetStatus, DatasetWriteTarget, EngineApi } from './engine-api.js';
import { requireResultStatus } from './native/result-status.js';
import { requireStringVector } from './native/string-vector.js';
import { requireBatchFetch } from './native/batch-fetch.js';
import { requireAppenderFlush } from './native/appender-flush.js';
import { engineError, statementCountError } from './engine-errors.js';
import { defaultMemoryLimitBytes } from './memory-limit.js';
import { bindParameters } from './parameters.js';
import { STAGED_WRITE, createStaging, executeRouted, stagedRows } from './routed-write.js';
import { ResultModes, type ResultMode } from './result-modes.js';
import { StatementCache } from './statement-cache.js';
import { streamResult } from './result-stream.js';
import { ResultShapes } from './result-shapes.js';
import { queryOverInputs } from './query-over.js';
import type { PreparedQuery } from './prepared-query.js';
import { quoteQualifiedName } from './sql-text.js';
import { lockDown } from './lockdown.js';
import { ManifestViews, type ViewStatus } from './views.js';
import { statementText, type StatementTextContext } from './statement-text.js';
import { referencedDatasets } from '../pipeline/statement-policy.js';
import { logicalPlanText } from './logical-plan.js';
import { preparedParameterSchema, preparedResultSchema } from './prepared-schemas.js';

/**
 * How long start-up waits for fetch sources to give their columns before the listeners bind.
 * A healthy source answers well within it (its datasets are there from the first request); a
 * slow or unreachable one (a database that is down, a scheduler with no executor yet) is
 * registered in the background when it answers (docs/engine.md, "Start-up").
 */
const SCHEMA_GRACE_MS = 1_000;

/**
 * How long closing the engine waits for interrupted queries to give their connections back
 * (DuckDB stops an interrupted query within milliseconds; a connection is never closed under
 * a running call, see ConnectionPool).
 */
const CLOSE_WAIT_MS = 2_000;

export interface EngineOptions {
  manifest: Manifest;
  source: ManifestSource;
  log: Logger;
  /** Told after every load or refresh attempt of a dataset (successful or not). */
  onDatasetLoaded?: (event: DatasetLoadEvent) => void;
  /** Told when a dataset's or a manifest view's name becomes queryable (at start-up, or later for a slow source). */
  onDatasetRegistered?: (name: string, kind: 'dataset' | 'view') => void;
  /** The `from:` schemes this deployment serves (core `file:` plus connector plugins). */
  connectors: ConnectorRegistry;
  /** Told after a dataset's data changed (refresh or write), so caches can drop what read it. */
  onDatasetChanged: (dataset: string, reason: 'refresh' | 'write') => Promise<void>;
}

/**
 * The embedded DuckDB engine: settings from `runtime.query`, the manifest's datasets, and
 * query execution as Arrow record batches. After datasets are registered the engine is
 * locked: user SQL reads only the datasets' own files and cannot change settings.
 */
export class Engine implements EngineApi {
  readonly #instance: DuckDBInstance;
  readonly #pool: ConnectionPool;
  readonly #registry: DatasetRegistry;
  readonly #options: EngineOptions;
  readonly #admin: AdminConnection;
  readonly #fetch: FetchDatasets;
  readonly #scheduler: RefreshScheduler;
  readonly #views: ManifestViews;
  readonly #writeTargets = new Map<string, DatasetWriteTarget>();
  /** What a user's text is rewritten against before it is prepared (statement-text.ts). */
  readonly #rewrites: StatementTextContext = {
    hiddenTableNames: () => this.sandbox.hiddenTableNames(),
    writeTarget: (dataset) => this.#writeTargets.get(dataset),
    insertTarget: (dataset) => this.#registry.insertTarget(dataset),
  };
  /** The default database's name (`appendToTable`'s tables live there): asked once. */
  #catalog: string | undefined;
  /** Which statements' results run whole rather than streamed (small, sparse ones: see ResultModes). */
  readonly #resultModes = new ResultModes();
  /** Read statements kept prepared on their connections for the next run of their text. */
  readonly #statements = new StatementCache();
  readonly #resultShapes = new ResultShapes();
  /** Datasets registered after start-up: settles once each has registered (and loaded) or failed once. */
  #late: Promise<void> = Promise.resolve();
  /** Where user SQL's reach ends beyond its statement kind; plugins add their tables and hints. */
  readonly sandbox = new EngineSandbox();
  readonly #mapError = (error: unknown) => engineError(error, {
    datasetNames: () => this.datasetNames(),
    unavailable: (table) => this.#registry.unavailable(table),
    extensionHint: (extension) => this.sandbox.extensionHint(extension),
  });

  private constructor(instance: DuckDBInstance, admin: DuckDBConnection, options: EngineOptions) {
    this.#instance = instance;
    this.#admin = new AdminConnection(admin);
    this.#options = options;
    this.#pool = new ConnectionPool(instance);
    this.#fetch = new FetchDatasets({ connect: () => instance.connect(), log: options.log.child('datasets') });
    this.#registry = new DatasetRegistry(options.manifest.datasets, {
      baseDirectory: options.source.directory,
      log: options.log.child('datasets'),
      connectors: options.connectors,
      loadParallelism: options.manifest.runtime.dataset_load_parallelism,
      fetch: this.#fetch,
      onLoaded: (event) => options.onDatasetLoaded?.(event),
      onRegistered: (dataset) => options.onDatasetRegistered?.(dataset, 'dataset'),
      onChanged: (dataset) => {
        this.#statements.invalidate();
        return options.onDatasetChanged(dataset, 'refresh');
      },
      connect: () => instance.connect(),
    });
    this.#views = new ManifestViews(options.manifest.views, {
      log: options.log.child('views'),
      datasetNames: () => this.datasetNames(),
      refusal: (connection, sql) => this.sandbox.refusal(connection, sql, this.#registry.allowedLocations()),
    });
    this.#fetch.readThroughViews((sql) => this.#views.datasetsReadThrough(sql));
    this.#scheduler = new RefreshScheduler({
      log: options.log.child('refresh'),
      attempt: async (dataset) => {
        try {
          await this.refresh(dataset);
          return 'ok';
        } catch (error) {
          // A refresh asked for over HTTP is running: this tick has nothing to add.
          if (error instanceof QuarryError && error.code === 'DATASET_REFRESH_IN_PROGRESS') return 'skipped';
          return isUnbindableRefresh(error, this.#registry.hasRefreshSql(dataset)) ? 'unbindable' : 'failed';
        }
      },
    });
  }

  static async create(options: EngineOptions): Promise<Engine> {
    const query = options.manifest.runtime.query;
    const memoryLimit = query.memory_limit ?? defaultMemoryLimitBytes();
    const settings: Record<string, string> = {
      memory_limit: `${memoryLimit}B`,
      // Extensions cannot be downloaded here, and user SQL must not trigger installs.
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    };
    if (query.temp_directory) settings['temp_directory'] = query.temp_directory;
    let instance: DuckDBInstance;
    try {
      requireResultStatus();
      requireStringVector();
      requireBatchFetch();
      requireAppenderFlush();
      instance = await DuckDBInstance.create(':memory:', settings);
    } catch (error) {
      throw new QuarryError('ENGINE_START_FAILED', `the SQL engine could not start: ${(error as Error).message}`, { cause: error });
    }
    options.log.info('engine started', {
      engine: 'duckdb',
      memory_limit: formatSizeApproximately(memoryLimit),
      temp_directory: query.temp_directory ?? '(engine default)',
    });
    if (query.spill_compression !== 'zstd') {
      // DuckDB compresses spilled blocks itself and exposes no setting for it (checked on 1.5.6).
      options.log.warn(`runtime.query.spill_compression=${query.spill_compression} has no effect: the DuckDB engine chooses spill compression itself`);
    }
    const admin = await instance.connect();
    try {
      await applyColumnarParams(async (sql) => (await admin.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>, options.manifest.runtime.params, {
        memoryLimitBytes: memoryLimit,
        log: options.log,
      });
    } catch (error) {
      admin.closeSync();
      instance.closeSync();
      if (error instanceof QuarryError) throw error;
      throw new QuarryError('ENGINE_SETTING_INVALID', `runtime.params could not be applied to the engine: ${(error as Error).message}`, { cause: error });
    }
    return new Engine(instance, admin, options);
  }

  /**
   * Registers every dataset (views, attached acceleration databases), then locks the engine
   * down. A fetch dataset whose source has not given its columns within SCHEMA_GRACE_MS is
   * registered later, in the background (`loadDatasets` waits for it). `signal` (a stop during
   * start-up) ends the waits; nothing more is registered then.
   */
  async registerDatasets(signal?: AbortSignal): Promise<void> {
    const run = (sql: string) => this.#admin.run(sql);
    await this.#registry.register(run, { graceMs: SCHEMA_GRACE_MS, ...(signal ? { signal } : {}) });
    if (signal?.aborted) return;
    // Everything registered later needs no setting changed: fetch datasets' stubs live in a
    // directory allowed here, and their acceleration databases were attached above.
    await lockDown(this.#admin, this.#registry.allowedLocations());
    this.#late = this.#registry.registerLate(run, (name) => this.#registeredLate(name));
    await this.#createViews();
  }

  /** Creates the manifest views whose datasets are registered (after lockdown: a view binds only what user SQL may read). */
  async #createViews(): Promise<void> {
    if (this.#views.names().length === 0) return;
    const connection = await this.#pool.acquire();
    try {
      // A live fetch dataset's view reads a per-connection temp view: this connection needs them to bind.
      await this.#fetch.beforePrepare(connection, '');
      await this.#views.create(connection, (name) => this.#registry.isRegistered(name), (view) => this.#options.onDatasetRegistered?.(view, 'view'));
    } finally {
      this.#release(connection, undefined, false);
    }
  }

  /**
   * Loads accelerated datasets, bounded by `runtime.dataset_load_parallelism`, then starts
   * their periodic refreshes (and retries of loads that failed). Resolves once the datasets
   * registered after start-up have registered (and loaded) or failed too.
   */
  async loadDatasets(): Promise<void> {
    await this.#registry.loadAccelerated(() => this.#instance.connect(), this.#options.manifest.runtime.dataset_load_parallelism);
    for (const { schedule, failedFirst } of this.#registry.schedules()) this.#scheduler.start(schedule, { failedFirst });
    await this.#late;
  }

  /** A dataset registered after start-up is loaded and scheduled as it would have been then. */
  async #registeredLate(name: string): Promise<void> {
    this.#statements.invalidate();
    const scheduled = await this.#registry.loadLate(name, () => this.#instance.connect());
    if (scheduled) this.#scheduler.start(scheduled.schedule, { failedFirst: scheduled.failedFirst });
    await this.#createViews();
  }

  /** When shutdown begins: datasets still waiting for their sources' columns stop waiting (before plugins stop what the sources use). */
  stopRegistering(): void {
    this.#registry.stopRegistering();
  }

  /** Whether a dataset still waits for its source's first answer to be registered. */
  registrationPending(): boolean {
    return this.#registry.registrationPending();
  }

  datasets(): DatasetStatus[] {
    return this.#registry.statuses();
  }

  dataset(name: string): DatasetStatus | undefined {
    return this.#registry.status(name);
  }

  datasetNames(): string[] {
    return this.#registry.names();
  }

  views(): ViewStatus[] {
    return this.#views.statuses();
  }

  /**
   * The datasets and manifest views a statement names (lower-case, from its text), with the
   * datasets each view reads: what its cached result depends on.
   */
  namesRead(sql: string): string[] {
    return this.#views.expand(referencedDatasets(sql, [...this.#registry.names(), ...this.#views.names()]));
  }

  /**
   * Of the datasets a query names (lower-case, as `namesRead` gives them), the accelerated ones
   * still answering from their sources: their first load has not finished.
   */
  servedFromSource(datasets: readonly string[]): string[] {
    return datasets.length === 0 ? [] : this.#registry.servedFromSource(datasets);
  }

  /** Replaces an accelerated dataset's refresh_sql for every later refresh, until restart (PATCH /v1/datasets/{name}/acceleration). */
  setRefreshSql(name: string, refreshSql: string): DatasetStatus {
    return this.#registry.setRefreshSql(name, refreshSql);
  }

  async refresh(name: string, overrides?: RefreshOverrides): Promise<DatasetStatus> {
    // An accelerated dataset refreshes on its own load connection; this one is opened only if it has none.
    let connection: DuckDBConnection | undefined;
    try {
      const status = await this.#registry.refresh(name, async (sql) => {
        connection ??= await this.#instance.connect();
        await connection.run(sql);
      }, overrides);
      this.#statements.invalidate();
      await this.#options.onDatasetChanged(status.name, 'refresh');
      return status;
    } finally {
      connection?.closeSync();
    }
  }

  /**
   * Why a dataset cannot take writes, or undefined when it can: it must exist, be accelerated
   * in memory mode and have `access: read_write`.
   */
  writeRefusal(name: string): string | undefined {
    const status = this.#registry.status(name);
    const view = status ? undefined : this.#views.names().find((viewName) => viewName.toLowerCase() === name.toLowerCase());
    if (view) return `"${view}" is a view (views: in the manifest), which is read-only; writes go into a dataset with access: read_write`;
    if (!status) return `dataset "${name}" does not exist (datasets: ${this.datasetNames().join(', ') || 'none'})`;
    const config = this.#options.manifest.datasets.find((dataset) => dataset.name.toLowerCase() === name.toLowerCase())!;
    if (config.access !== 'read_write') return `dataset "${status.name}" is read-only; set access: read_write on it to accept writes`;
    if (this.#writeTargets.has(status.name.toLowerCase())) return undefined;
    if (!this.#registry.accelerationTable(name)) return `dataset "${status.name}" is not accelerated (or failed to load); writes go into an accelerated dataset`;
    return undefined;
  }

  /** Appends Arrow batches to a writable accelerated dataset (Flight ingest), then fires invalidation. */
  async append(name: string, schema: Schema, batches: AsyncIterable<RecordBatch>, options: { principal: Principal; signal: AbortSignal }): Promise<{ rows: number }> {
    if (!this.#registry.status(name)) throw new QuarryError('DATASET_NOT_FOUND', `dataset "${name}" does not exist (datasets: ${this.datasetNames().join(', ') || 'none'})`);
    const unavailable = this.#registry.unavailable(name);
    if (unavailable) throw unavailable;
    const refusal = this.writeRefusal(name);
    if (refusal) throw new QuarryError(this.#registry.accelerationTable(name) ? 'WRITE_NOT_ALLOWED' : 'DATASET_NOT_ACCELERATED', refusal);
    if (!options.principal.canWrite) throw new QuarryError('WRITE_NOT_ALLOWED', `writing to dataset "${name}": ${readOnlyRefusal(options.principal)}`);
    const target = this.#writeTargets.get(name.toLowerCase());
    if (target) return this.#appendThroughTarget(name, target, schema, batches, options.signal);
    const { table, config } = this.#registry.accelerationTable(name)!;
    const rules = this.#registry.keyRules(name)!;
    const connection = await this.#instance.connect();
    try {
      let rows: number;
      if (rules.primaryKey.length === 0) {
        rows = await appendBatches({ connection, table, schema, batches, signal: options.signal });
      } else {
        // Keyed: the batches land in a private staging table, then merge by the conflict rule.
        await connection.run(`CREATE TEMP TABLE quarry_ingest AS SELECT * FROM ${table.sql} LIMIT 0`);
        rows = await appendBatches({ connection, table: { catalog: 'temp', schema: 'main', name: 'quarry_ingest' }, schema, batches, signal: options.signal });
        await connection.run(mergeStatement(table.sql, 'temp.main.quarry_ingest', rules));
      }
      await this.#options.onDatasetChanged(config.name, 'write');
      return { rows };
    } catch (error) {
      throw this.#mapError(error);
    } finally {
      connection.closeSync();
    }
  }

  async appendToTable(table: { schema: string; name: string }, schema: Schema, batches: AsyncIterable<RecordBatch>, signal: AbortSignal, options: { exactColumns?: boolean } = {}): Promise<number> {
    const connection = await this.#instance.connect();
    try {
      this.#catalog ??= String((await connection.runAndReadAll('SELECT current_database() AS name')).getRowObjectsJS()[0]?.['name'] ?? 'memory');
      return await appendBatches({ connection, table: { catalog: this.#catalog, ...table }, schema, batches, signal, exactColumns: options.exactColumns === true });
    } catch (error) {
      throw this.#mapError(error);
    } finally {
      connection.closeSync();
    }
  }

  setWriteTarget(dataset: string, target: DatasetWriteTarget): void {
    this.#writeTargets.set(dataset.toLowerCase(), target);
  }

  /** Ingest into a dataset with a write target: the batches are staged, then handed to the target. */
  async #appendThroughTarget(name: string, target: DatasetWriteTarget, schema: Schema, batches: AsyncIterable<RecordBatch>, signal: AbortSignal): Promise<{ rows: number }> {
    const connection = await this.#pool.acquire();
    let discard = false;
    try {
      await this.#fetch.beforeQuery(connection, ''); // the live datasets' views, which the staging table copies its columns from
      await createStaging(connection, quoteQualifiedName(this.#registry.status(name)!.name));
      await appendBatches({ connection, table: { catalog: 'temp', schema: 'main', name: 'quarry_routed_write' }, schema, batches, signal });
      const rows = await target.write(stagedRows(connection), signal);
      await this.#options.onDatasetChanged(this.#registry.status(name)!.name, 'write');
      return { rows };
    } catch (error) {
      discard = signal.aborted;
      throw this.#mapError(error);
    } finally {
      await connection.run(`DROP TABLE IF EXISTS ${STAGED_WRITE}`).catch(() => (discard = true));
      this.#pool.release(connection, { discard });
    }
  }

  addConnectionInitializer(initializer: (connection: DuckDBConnection) => Promise<void>): void {
    this.#pool.addInitializer(initializer);
  }

  async runInternal(sql: string, parameters: readonly unknown[] = [], options: { readLive?: boolean } = {}): Promise<Array<Record<string, unknown>>> {
    const connection = await this.#pool.acquire();
    let liveCleanup: (() => Promise<void>) | undefined;
    try {
      if (options.readLive === false) await this.#fetch.beforePrepare(connection, '');
      else liveCleanup = await this.#fetch.beforeQuery(connection, sql);
      const prepared = await this.sandbox.prepare(connection, sql, RUNTIME_CALLER);
      bindParameters(prepared, parameters);
      const reader = await prepared.runAndReadAll();
      return reader.getRowObjectsJS() as Array<Record<string, unknown>>;
    } catch (error) {
      throw this.#mapError(error);
    } finally {
      this.#release(connection, liveCleanup, false);
    }
  }

  queryOver(sql: string, inputs: readonly BatchInput[], signal: AbortSignal): Promise<{ schema: Schema; batches: AsyncIterable<RecordBatch> }> {
    return queryOverInputs(this.#pool, sql, inputs, signal, { mapError: this.#mapError, maxValueBytes: this.#options.manifest.runtime.query.max_value_size });
  }

  /**
   * The normalised logical plan of a statement (as `PreparedQuery.logicalPlan`), on a connection
   * of its own: started beside `prepare`, a new text's plan and classification take one engine
   * round trip of time instead of two. Live datasets are bound to their typed stubs (nothing is
   * fetched).
   */
  async logicalPlan(sql: string): Promise<string> {
    const connection = await this.#pool.acquire();
    try {
      await this.#fetch.beforePrepare(connection, sql);
      return await logicalPlanText(connection, sql);
    } catch (error) {
      throw this.#mapError(error);
    } finally {
      this.#release(connection, undefined, false);
    }
  }

  /**
   * Why user SQL may not run (function-policy.ts), on a connection of its own: the policy reads
   * the engine's parse of the text alone, so a new text's check runs beside its prepare rather
   * than after it (~0.2–0.3 ms of a new text's classification here).
   */
  async functionRefusal(text: string): Promise<QuarryError | undefined> {
    const connection = await this.#pool.acquire();
    try {
      // The text the prepare runs (its rewrites applied), as a prepared query's own check reads it.
      return await this.sandbox.refusal(connection, statementText(text, this.#rewrites).sql, this.#registry.allowedLocations());
    } finally {
      this.#release(connection, undefined, false);
    }
  }

  /**
   * Parses and classifies one statement; the caller must `execute` or `close` it. Live fetch
   * datasets it reads are fetched when it is executed (classifying it, describing its result
   * or keying a cache reads nothing), unless `fillLive` says it is about to run anyway.
   */
  async prepare(text: string, options: { fillLive?: boolean; caller?: Principal } = {}): Promise<PreparedQuery> {
    // Statements never run for users are not even prepared: binding some has effects (statement-gate.ts).
    const refused = unpreparedRefusal(text);
    if (refused) throw refused;
    const connection = await this.#pool.acquire();
    let liveCleanup: (() => Promise<void>) | undefined;
    const mapError = this.#mapError;
    try {
      const { sql, routes } = statementText(text, this.#rewrites);
      const route = routes[0];
      await this.#fetch.beforePrepare(connection, sql);
      // Bound against the live datasets' empty typed stubs until it runs: then their rows are
      // fetched (with the plan's pushdown) and the statement is prepared again over them.
      let unfilled = options.fillLive !== true && this.#fetch.readsLive(sql);
      if (!unfilled) liveCleanup = await this.#fetch.fill(connection, sql);
      if (route) await createStaging(connection, quoteQualifiedName(this.#registry.status(route.dataset)!.name));
      // The same for every caller, so a read may be kept for the next run of its text (StatementCache).
      const reusable = !unfilled && liveCleanup === undefined && !route && this.#statements.accepts(sql) && !this.sandbox.dependsOnCaller(sql);
      const kept = reusable ? this.#statements.take(connection, sql) : undefined;
      // One engine round trip: DuckDB refuses an empty or multi-statement text itself, and the
      // statements are counted only then, for the message.
      let prepared = kept ?? await this.sandbox.prepare(connection, sql, options.caller).catch(async (error: unknown) => {
        throw (await statementCountError(connection, sql, error)) ?? error;
      });
      const fill = async () => {
        if (!unfilled) return;
        unfilled = false;
        liveCleanup = await this.#fetch.fill(connection, sql);
        if (!liveCleanup) return;
        const bound = prepared;
        prepared = await this.sandbox.prepare(connection, sql, options.caller);
        bound.destroySync();
      };
      let settled = false;
      let keep = false;
      const finish = (discard: boolean) => {
        if (settled) return;
        settled = true;
        if (keep && !discard) this.#statements.keep(connection, sql, prepared);
        else prepared.destroySync();
        this.#release(connection, liveCleanup, discard);
      };
      const shapes = this.#resultShapes;
      const classified = await classifyPrepared(connection, sql, prepared.statementType);
      keep = reusable && classified.kind === 'read';
      return {
        kind: classified.kind,
        statementType: classified.statementType,
        parameterCount: prepared.parameterCount,
        // Computed on demand: most queries never ask, and unresolved types only matter to Flight.
        get resultSchema() {
          return keep ? shapes.preparedSchema(prepared, preparedResultSchema) : preparedResultSchema(prepared);
        },
        get parameterSchema() {
          return preparedParameterSchema(prepared);
        },
        functionRefusal: () => this.sandbox.refusal(connection, sql, this.#registry.allowedLocations()),
        logicalPlan: async () => {
          if (settled) throw new QuarryError('INTERNAL', 'the logical plan is available only before the query runs');
          return logicalPlanText(connection, sql).catch((error: unknown) => {
            throw mapError(error);
          });
        },
        execute: async (parameters, signal) => {
          try {
            await fill();
          } catch (error) {
            finish(false);
            throw mapError(error);
          }
          if (route) return executeRouted(route.target, { prepared, connection, parameters, signal, finish, mapError });
          try {
            bindParameters(prepared, parameters);
            const mode = this.#resultModes.modeFor(sql);
            return await streamResult({
              prepared, connection, signal, onFinish: finish, mapError, maxValueBytes: this.#options.manifest.runtime.query.max_value_size,
              interruptedByRuntime: () => this.#pool.interruptedAll,
              materialize: mode === 'materialize',
              onComplete: (seen) => this.#resultModes.learn(sql, mode, seen),
              // Only a statement that will be kept is run again: a shape of any other is never read.
              ...(keep ? { shapes: this.#resultShapes } : {}),
            });
          } catch (error) {
            finish(signal.aborted);
            throw mapError(error);
          }
        },
        close: () => finish(false),
      };
    } catch (error) {
      this.#release(connection, liveCleanup, false);
      throw mapError(error);
    }
  }

  /** Returns a query connection to the pool, first dropping the live rows it read (see FetchDatasets) and the caller set on it (EngineSandbox). */
  #release(connection: DuckDBConnection, liveCleanup: (() => Promise<void>) | undefined, discard: boolean): void {
    const callerCleanup = this.sandbox.callerCleanup(connection);
    if ((!liveCleanup && !callerCleanup) || discard) {
      this.#pool.release(connection, { discard });
      return;
    }
    (async () => { // one statement at a time on a connection
      await liveCleanup?.();
      await callerCleanup?.();
    })().then(
      () => this.#pool.release(connection),
      () => this.#pool.release(connection, { discard: true }),
    );
  }

  /** How the next run of this statement text hands its result over (see ResultModes). */
  resultMode(sql: string): ResultMode {
    return this.#resultModes.modeFor(sql);
  }

  /** How many queries ran a statement kept prepared from an earlier run of their text (StatementCache). */
  get preparedStatementReuses(): number {
    return this.#statements.reuses;
  }

  /** Number of queries holding a connection now. */
  get activeQueries(): number {
    return this.#pool.busyCount;
  }

  interruptAll(): void {
    this.#pool.interruptAll();
  }

  /**
   * Stops refreshes, interrupts running queries and closes the engine once they stopped. A
   * connection still busy after CLOSE_WAIT_MS is left open (closing it would hang its call for
   * good) and goes with the process; so does the instance then.
   */
  async close(): Promise<void> {
    this.#scheduler.close();
    this.#registry.markShuttingDown();
    this.#registry.closeLoadConnections();
    const [, adminClosed] = await Promise.all([this.#pool.close(CLOSE_WAIT_MS), this.#admin.close(CLOSE_WAIT_MS)]);
    if (adminClosed && this.#pool.busyCount === 0) this.#instance.closeSync();
    else this.#options.log.warn('engine closed with a statement still running; its connection is left to the process exit');
    this.#fetch.close();
  }
}
