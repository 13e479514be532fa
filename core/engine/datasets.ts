import path from 'node:path';
import { mkdirSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { QuarryError, toQuarryError } from '../errors/quarry-error.js';
import type { Logger } from '../log.js';
import type { DatasetConfig } from '../manifest/types.js';
import type { DatasetStatus } from './engine-api.js';
import type { DatasetLoadEvent } from '../pipeline/types.js';
import type { DatasetSource, EngineSource, FetchSource } from './sources/connector.js';
import type { Schema } from 'apache-arrow';
import { FetchDatasets } from './fetch/fetch-datasets.js';
import { PendingSchemas } from './fetch/pending-schemas.js';
import { LoadSlots } from './load-slots.js';
import { LoadProgress } from './load-progress.js';
import { closeLoadConnections, LOAD_TIMEOUT_MS, loadDataset, openLoadConnections, reportProgress, type LoadSteps } from './acceleration/dataset-load.js';
import type { ConnectorRegistry } from './sources/connector-registry.js';
import { quoteIdentifier, quoteLiteral, quoteQualifiedName } from './sql-text.js';
import { refreshPlan, type RefreshOverrides, type RefreshPlan } from './acceleration/refresh-options.js';
import { RetentionChecks } from './acceleration/retention-checks.js';
import { insertVerb, keyRules, type KeyRules } from './acceleration/refresh-statements.js';
import type { InsertTarget } from './acceleration/insert-redirect.js';
import type { RefreshSchedule } from './acceleration/refresh-scheduler.js';
import { ensureSchema, isAccelerated, scheduleOf, servedFromSource, tableRef, toStatus, type DatasetEntry, type RunStatement, type TableRef } from './dataset-entry.js';


/**
 * The manifest's datasets inside the engine. Each is first registered as a view over its
 * source (queryable at once, live); an accelerated one is then loaded into a table that
 * takes the view's place. Reloads replace the table in one transaction, so a query sees the
 * old data or the new, never a mix.
 */
export class DatasetRegistry {
  readonly #entries = new Map<string, DatasetEntry>();
  readonly #baseDirectory: string;
  readonly #log: Logger;
  readonly #onLoaded: (event: DatasetLoadEvent) => void;
  readonly #onRegistered: (dataset: string) => void;
  readonly #onChanged: (dataset: string) => Promise<void>;
  readonly #connectors: ConnectorRegistry;
  readonly #fetch: FetchDatasets;
  readonly #loadParallelism: number | undefined;
  readonly #loadSlots: LoadSlots;
  readonly #schemas: PendingSchemas;
  /** Registrations after start-up run one at a time on the registering connection. */
  #lateChain: Promise<unknown> = Promise.resolve();
  #usesFetch = false;
  #closed = false;
  /** acceleration.retention_*: undefined without a connection to run them on (unit tests). */
  readonly #retention: RetentionChecks | undefined;
  readonly #connect: (() => Promise<DuckDBConnection>) | undefined;
  /** What a load does besides filling the table: drop the fetch staging, start retention checks. */
  readonly #loadSteps: LoadSteps;

  constructor(
    datasets: readonly DatasetConfig[],
    options: {
      baseDirectory: string;
      log: Logger;
      connectors: ConnectorRegistry;
      fetch?: FetchDatasets;
      /** runtime.dataset_load_parallelism: mirrors synchronised (and datasets loaded) at most this many at once. */
      loadParallelism?: number;
      onLoaded?: (event: DatasetLoadEvent) => void;
      /** Told when a dataset's name becomes queryable (its view exists). */
      onRegistered?: (dataset: string) => void;
      /** Told after a start-up load changed what a dataset serves (caches may hold the live source's answers). */
      onChanged?: (dataset: string) => Promise<void>;
      /** A connection for retention checks (they run on their own, between loads) and for each accelerated dataset's loads. */
      connect?: () => Promise<DuckDBConnection>;
    },
  ) {
    this.#connect = options.connect;
    this.#baseDirectory = options.baseDirectory;
    this.#connectors = options.connectors;
    this.#loadParallelism = options.loadParallelism;
    this.#loadSlots = new LoadSlots(options.loadParallelism);
    // Without the engine's fetch wiring (unit tests of file datasets), fetch sources cannot load.
    this.#fetch = options.fetch ?? new FetchDatasets({ connect: () => Promise.reject(new Error('no engine connection for fetched datasets')), log: options.log });
    this.#log = options.log;
    this.#schemas = new PendingSchemas({ fetch: this.#fetch, log: options.log });
    this.#onLoaded = options.onLoaded ?? (() => undefined);
    this.#onRegistered = options.onRegistered ?? (() => undefined);
    this.#onChanged = options.onChanged ?? (async () => undefined);
    this.#retention = options.connect && new RetentionChecks({ connect: options.connect, log: options.log, onChanged: this.#onChanged });
    this.#loadSteps = { log: this.#log, afterLoad: (name) => this.#fetch.afterLoad(name), startRetention: (entry) => this.#retention?.start(entry) };
    for (const config of datasets) {
      this.#entries.set(config.name.toLowerCase(), {
        config,
        state: 'initializing',
        error: undefined,
        loadedAt: undefined,
        source: undefined,
        accelerationTable: undefined,
        refreshing: undefined,
        viewReadsTable: false,
        servedFromFile: false,
        registered: false,
        late: undefined,
        refreshSqlOverride: undefined,
        loadConnection: undefined,
        fetched: false,
        progress: undefined,
        lastLoad: undefined,
      });
    }
  }

  names(): string[] {
    return [...this.#entries.values()].map((entry) => entry.config.name);
  }

  /** Whether queries may name the dataset (its view exists), whatever its data's state. */
  isRegistered(name: string): boolean {
    return this.#entries.get(name.toLowerCase())?.registered === true;
  }

  statuses(): DatasetStatus[] {
    return [...this.#entries.values()].map((entry) => this.#status(entry));
  }

  status(name: string): DatasetStatus | undefined {
    const entry = this.#entries.get(name.toLowerCase());
    return entry && this.#status(entry);
  }

  #status(entry: DatasetEntry): DatasetStatus {
    return toStatus(entry, entry.registered || this.#closed ? undefined : this.#schemas.describe(entry.config.name));
  }

  /** Paths and directories the engine must keep readable after lockdown. */
  allowedLocations(): { paths: string[]; directories: string[] } {
    const paths: string[] = [];
    const directories: string[] = [];
    for (const entry of this.#entries.values()) {
      if (!entry.source) continue;
      paths.push(...entry.source.allowedPaths);
      directories.push(...entry.source.allowedDirectories);
    }
    // Live stubs of fetch datasets registered after lockdown are written and read there.
    if (this.#usesFetch) directories.push(`${this.#fetch.stubDirectory()}${path.sep}`);
    return { paths, directories };
  }

  /**
   * Creates the views (and attaches file-mode acceleration databases). Runs before lockdown,
   * on one connection. A dataset that cannot be registered is put in error and the rest go on.
   * Fetch sources are all asked their columns at once; one that has not answered within
   * `graceMs` (default: no limit) is left to `registerLate`, so a slow or unreachable source
   * does not keep the runtime from listening. `signal` (stop during start-up) ends the waits.
   */
  async register(run: RunStatement, options: { graceMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    const resolved = new Map<DatasetEntry, { source: DatasetSource; synchronised: boolean } | { error: unknown }>();
    for (const entry of this.#entries.values()) {
      try {
        resolved.set(entry, { source: await this.#connectors.resolve(entry.config, { baseDirectory: this.#baseDirectory, log: this.#log }), synchronised: false });
      } catch (error) {
        resolved.set(entry, { error });
      }
    }
    for (const [entry, outcome] of resolved) {
      if (!('source' in outcome) || outcome.source.kind !== 'fetch') continue;
      this.#usesFetch = true;
      entry.fetched = true;
      this.#schemas.ask(entry.config, outcome.source);
    }
    if (this.#connect) await openLoadConnections(this.#entries.values(), this.#connect);
    await this.#synchroniseMirrors(resolved, options.signal);
    const deadline = performance.now() + (options.graceMs ?? Number.POSITIVE_INFINITY);
    for (const entry of this.#entries.values()) {
      if (options.signal?.aborted) return;
      try {
        const outcome = resolved.get(entry)!;
        if ('error' in outcome) throw outcome.error;
        await ensureSchema(run, entry.config.name);
        if (outcome.source.kind === 'fetch') {
          const schema = await this.#schemas.answerWithin(entry.config.name, deadline, options.signal);
          if (schema === 'failed' || schema === 'waiting') {
            await this.#deferRegistration(entry, outcome.source, run, schema === 'waiting');
            continue;
          }
          this.#schemas.forget(entry.config.name);
          entry.source = await this.#fetch.fetchedSource(entry.config, outcome.source, schema, run);
        } else {
          entry.source = await this.#fetch.engineSource(entry.config, outcome.source, outcome.synchronised);
        }
        await this.#createView(entry, run);
      } catch (error) {
        this.#schemas.forget(entry.config.name);
        this.#fail(entry, error);
      }
    }
  }

  /** The accelerated datasets whose names, among `names` (lower-case), still read their sources: their first load has not finished. */
  servedFromSource(names: readonly string[]): string[] {
    const found: string[] = [];
    for (const name of names) {
      const entry = this.#entries.get(name.toLowerCase());
      if (entry && servedFromSource(entry)) found.push(entry.config.name);
    }
    return found;
  }

  /**
   * A fetch dataset whose columns are still awaited: what needs the engine unlocked is done
   * now (attaching a file-mode acceleration database needs file access); the rest when they come.
   */
  async #deferRegistration(entry: DatasetEntry, source: FetchSource, run: RunStatement, waiting: boolean): Promise<void> {
    const attachedTable = isAccelerated(entry.config) && entry.config.acceleration?.mode === 'file' ? await this.#accelerationTable(run, entry.config) : undefined;
    entry.late = { source, attachedTable };
    // (A failed attempt is reported, and retried, by registerLate.)
    if (waiting) this.#log.info('dataset waits for its source\'s columns; it is registered when they come', { dataset: entry.config.name, from: entry.config.from, waiting_for: this.#schemas.describe(entry.config.name) });
  }

  /**
   * The view over the source (and, accelerated, the table its rows will be loaded into).
   * The dataset is registered from here on: queries may name it.
   */
  async #createView(entry: DatasetEntry, run: RunStatement): Promise<void> {
    const source = entry.source!;
    for (const statement of source.setupStatements ?? []) await run(statement);
    await run(`CREATE OR REPLACE VIEW ${quoteQualifiedName(entry.config.name)} AS SELECT * FROM ${source.tableExpression}`);
    entry.registered = true;
    this.#onRegistered(entry.config.name);
    if (isAccelerated(entry.config)) {
      entry.accelerationTable = entry.late?.attachedTable ?? (await this.#accelerationTable(run, entry.config));
      if (entry.config.acceleration?.mode === 'file') await this.#serveExistingFile(entry, run);
      this.#warnIfRefreshDropsWrites(entry.config);
    } else {
      entry.state = 'ready';
      entry.loadedAt = new Date().toISOString();
      this.#log.info('dataset registered', { dataset: entry.config.name, from: entry.config.from, accelerated: false, ...(entry.late ? { after_start_up: true } : {}) });
    }
  }

  /**
   * After lockdown: registers each dataset left waiting by `register` once its source gives its
   * columns, then calls `onRegistered` (the engine loads it, if accelerated, and starts its
   * refreshes), as if it had been there at start-up. A failed attempt puts the dataset in
   * error and is retried with backoff. Resolves once each has registered (and loaded) or failed
   * once; retries go on after.
   */
  registerLate(run: RunStatement, onRegistered: (name: string) => Promise<void>): Promise<void> {
    const late = [...this.#entries.values()].filter((entry) => entry.late !== undefined && entry.state !== 'error');
    return Promise.all(late.map((entry) => this.#whenAnswered(entry, run, onRegistered))).then(() => undefined);
  }

  async #whenAnswered(entry: DatasetEntry, run: RunStatement, onRegistered: (name: string) => Promise<void>): Promise<void> {
    const name = entry.config.name;
    const answer = this.#schemas.answer(name);
    if (!answer || this.#closed) return;
    let schema: Schema;
    try {
      schema = await answer;
    } catch (error) {
      if (this.#closed) return;
      this.#fail(entry, error);
      const retryAt = this.#schemas.retryLater(name, error, () => void this.#whenAnswered(entry, run, onRegistered));
      if (retryAt) entry.error = `${entry.error} (asked again at ${retryAt})`;
      return;
    }
    if (this.#closed) return;
    const registration = this.#lateChain.then(async () => {
      try {
        this.#schemas.forget(name);
        entry.state = 'initializing';
        entry.error = undefined;
        entry.source = await this.#fetch.fetchedSource(entry.config, entry.late!.source, schema, run);
        await this.#createView(entry, run);
        return true;
      } catch (error) {
        if (!this.#closed) this.#fail(entry, error);
        return false;
      }
    });
    this.#lateChain = registration;
    if (!(await registration) || this.#closed) return;
    await onRegistered(name).catch((error: unknown) => this.#log.error('a dataset registered after start-up could not be loaded', { dataset: name, error: toQuarryError(error).message }));
  }

  /** Whether a dataset is still waiting for its source's first answer (runtime.ready_state `on_registration` waits for it). */
  registrationPending(): boolean {
    for (const entry of this.#entries.values()) if (entry.late && !entry.registered && entry.state !== 'error') return true;
    return false;
  }

  /**
   * Why a dataset a query names has no view in the engine (DuckDB then says no such table):
   * it still waits for its source's columns (DATASET_NOT_READY, 503), or it failed to register
   * (DATASET_LOAD_FAILED). Undefined when `table` names no such dataset.
   */
  unavailable(table: string): QuarryError | undefined {
    if (this.#closed) return undefined;
    const wanted = table.replace(/^"|"$/g, '').toLowerCase();
    const entry = [...this.#entries.values()].find((candidate) => {
      const name = candidate.config.name.toLowerCase();
      return !candidate.registered && (name === wanted || name.split('.').at(-1) === wanted);
    });
    if (!entry) return undefined;
    if (entry.late && entry.state === 'initializing' && !this.#schemas.has(entry.config.name)) {
      return new QuarryError('DATASET_NOT_READY', `dataset "${entry.config.name}" is not ready: its source just gave its columns and it is being registered; try again in a moment`, { details: { dataset: entry.config.name } });
    }
    return this.#schemas.notReady(entry.config.name, entry.error)
      ?? new QuarryError('DATASET_LOAD_FAILED', `dataset "${entry.config.name}" could not be registered: ${entry.error ?? 'see the log'}`, { details: { dataset: entry.config.name } });
  }

  /**
   * Sources with a local mirror (objects, downloads) are brought up to date before their
   * views are made, several at once (runtime.dataset_load_parallelism): one slow upstream
   * must not hold up the others, and per-origin rate control sees the real concurrency.
   */
  async #synchroniseMirrors(resolved: Map<DatasetEntry, { source: DatasetSource; synchronised: boolean } | { error: unknown }>, signal: AbortSignal | undefined): Promise<void> {
    const pending = [...resolved].filter(([, outcome]) => 'source' in outcome && outcome.source.kind === 'engine' && outcome.source.synchronise);
    let next = 0;
    const worker = async () => {
      while (next < pending.length) {
        const [entry, outcome] = pending[next++]! as [DatasetEntry, { source: EngineSource; synchronised: boolean }];
        try {
          // Before the listeners are up: the log is where a long download shows its progress.
          const progress = new LoadProgress('load', () => undefined, () => undefined);
          const timeout = AbortSignal.timeout(LOAD_TIMEOUT_MS);
          await reportProgress(entry, progress, this.#log, () => outcome.source.synchronise!(signal ? AbortSignal.any([timeout, signal]) : timeout, progress.sink()));
          outcome.synchronised = true;
        } catch (error) {
          resolved.set(entry, { error });
        }
      }
    };
    const workers = Math.max(1, Math.min(this.#loadParallelism ?? pending.length, pending.length));
    await Promise.all(Array.from({ length: workers }, worker));
  }

  /**
   * Memory mode: the dataset's own name in `main` becomes a table (so INSERT and appends work
   * on it). File mode: a table in an attached database file, reached through the view.
   */
  async #accelerationTable(run: RunStatement, config: DatasetConfig): Promise<TableRef> {
    const [schema, name] = config.name.includes('.') ? config.name.split('.') as [string, string] : ['main', config.name];
    if (config.acceleration?.mode !== 'file') return tableRef('memory', schema, name);
    const file = config.acceleration.params['duckdb_file']
      ?? path.join('.quarry', 'acceleration', `${config.name.toLowerCase()}.duckdb`);
    const absolute = path.resolve(this.#baseDirectory, file);
    mkdirSync(path.dirname(absolute), { recursive: true });
    const database = `quarry_file_${config.name.toLowerCase().replaceAll('.', '_')}`;
    await run(`ATTACH ${quoteLiteral(absolute)} AS ${quoteIdentifier(database)}`);
    return tableRef(database, 'main', config.name.toLowerCase().replaceAll('.', '__'));
  }

  /**
   * File mode after a restart: when the acceleration file already holds the table, the
   * dataset serves it at once (`refresh_on_startup: auto` then waits for the interval;
   * `always` refreshes it in the background while it is served).
   */
  async #serveExistingFile(entry: DatasetEntry, run: RunStatement): Promise<void> {
    const table = entry.accelerationTable!.sql;
    try {
      await run(`SELECT * FROM ${table} LIMIT 0`);
    } catch {
      return; // no table yet: the first load creates it
    }
    await run(`CREATE OR REPLACE VIEW ${quoteQualifiedName(entry.config.name)} AS SELECT * FROM ${table}`);
    entry.viewReadsTable = true;
    entry.servedFromFile = true;
    entry.state = 'ready';
    entry.loadedAt = new Date().toISOString();
    this.#log.info('dataset served from its acceleration file', { dataset: entry.config.name, refresh_on_startup: entry.config.acceleration?.refresh_on_startup ?? 'auto' });
  }

  /** A full refresh makes the table a copy of the source: rows written into it are replaced. */
  #warnIfRefreshDropsWrites(config: DatasetConfig): void {
    const acceleration = config.acceleration;
    if (config.access !== 'read_write' || (acceleration?.refresh_mode ?? 'full') !== 'full') return;
    if (acceleration?.refresh_check_interval === undefined && acceleration?.refresh_on_startup !== 'always') return;
    this.#log.warn('rows written into this dataset are replaced by each full refresh; use refresh_mode: append to keep them', { dataset: config.name });
  }

  /** The table an accelerated dataset's rows live in, for appends. */
  accelerationTable(name: string): { table: TableRef; config: DatasetConfig } | undefined {
    const entry = this.#entries.get(name.toLowerCase());
    return entry?.accelerationTable && entry.state !== 'error' ? { table: entry.accelerationTable, config: entry.config } : undefined;
  }

  /** The primary-key rules of an accelerated dataset (writes merge by them). */
  keyRules(name: string): KeyRules | undefined {
    const entry = this.#entries.get(name.toLowerCase());
    return entry?.accelerationTable ? keyRules(entry.config) : undefined;
  }

  /**
   * Where a user INSERT naming the dataset must write: the attached table in file mode (the
   * name is a view there), with the dataset's conflict rule. Undefined: leave the statement.
   */
  insertTarget(name: string): InsertTarget | undefined {
    const entry = this.#entries.get(name.toLowerCase());
    if (!entry?.accelerationTable || !entry.viewReadsTable) return undefined;
    const verb = insertVerb(keyRules(entry.config));
    const conflictClause = verb === 'INSERT OR REPLACE' ? 'OR REPLACE' : verb === 'INSERT OR IGNORE' ? 'OR IGNORE' : undefined;
    if (entry.config.acceleration?.mode !== 'file' && conflictClause === undefined) return undefined;
    return { table: entry.config.acceleration?.mode === 'file' ? entry.accelerationTable.sql : quoteQualifiedName(entry.config.name), conflictClause };
  }

  /** Each accelerated dataset's refresh schedule, and whether its first load failed (retry at once); datasets registered later are not listed (see `loadLate`). */
  schedules(): Array<{ schedule: RefreshSchedule; failedFirst: boolean }> {
    return [...this.#entries.values()].filter((entry) => entry.accelerationTable !== undefined && entry.late === undefined).map(scheduleOf);
  }

  /**
   * Loads every accelerated dataset registered at start-up, at most `parallelism` at once. A
   * file-mode dataset already served from its file is refreshed only with `refresh_on_startup: always`.
   */
  async loadAccelerated(connect: () => Promise<DuckDBConnection>, parallelism: number | undefined): Promise<void> {
    const pending = [...this.#entries.values()].filter(
      (entry) => entry.late === undefined && entry.accelerationTable && (entry.state === 'initializing' || (entry.servedFromFile && entry.config.acceleration?.refresh_on_startup === 'always')),
    );
    if (pending.length === 0) return;
    const limit = parallelism ?? pending.length;
    let next = 0;
    const worker = async () => {
      // Only for datasets without a load connection of their own (engines made without `connect`).
      let connection: DuckDBConnection | undefined;
      const run = async (sql: string) => {
        connection ??= await connect();
        await connection.run(sql);
      };
      try {
        while (next < pending.length) {
          const entry = pending[next++]!;
          await this.#loadSlots.run(() => this.#loadFirst(entry, run));
        }
      } finally {
        connection?.closeSync();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, pending.length)) }, worker));
  }

  /**
   * A dataset registered after start-up: loads it (when accelerated, within
   * runtime.dataset_load_parallelism) and returns its refresh schedule; undefined when it is not accelerated.
   */
  async loadLate(name: string, connect: () => Promise<DuckDBConnection>): Promise<{ schedule: RefreshSchedule; failedFirst: boolean } | undefined> {
    const entry = this.#entries.get(name.toLowerCase());
    if (!entry?.accelerationTable || this.#closed) return undefined;
    if (entry.state === 'initializing' || (entry.servedFromFile && entry.config.acceleration?.refresh_on_startup === 'always')) {
      await this.#loadSlots.run(async () => {
        let connection: DuckDBConnection | undefined;
        try {
          await this.#loadFirst(entry, async (sql: string) => {
            connection ??= await connect();
            await connection.run(sql);
          });
        } finally {
          connection?.closeSync();
        }
      });
    }
    return this.#closed ? undefined : scheduleOf(entry);
  }

  /** A dataset's first load (or, served from its file, the refresh `refresh_on_startup: always` asks for); a failure puts it in error. */
  async #loadFirst(entry: DatasetEntry, run: RunStatement): Promise<void> {
    if (entry.servedFromFile) {
      await this.refresh(entry.config.name, run).then(() => this.#onChanged(entry.config.name), () => undefined);
      return;
    }
    let plan: RefreshPlan;
    try {
      plan = refreshPlan(entry.config, { refreshSql: entry.refreshSqlOverride });
    } catch (error) {
      this.#fail(entry, error);
      return;
    }
    entry.refreshing = this.#timed(entry, 'load', () => loadDataset(entry, run, plan, 'load', this.#loadSteps));
    // Before its first load a dataset answers from its source; with refresh_sql the loaded rows differ, so cached answers go.
    const changed = async () => (plan.refreshSql === undefined ? undefined : this.#onChanged(entry.config.name));
    await entry.refreshing.then(changed, (error) => this.#fail(entry, error)).finally(() => {
      entry.refreshing = undefined;
    });
  }

  /** Whether the dataset's loads run a refresh_sql (the manifest's, or one set since). */
  hasRefreshSql(name: string): boolean {
    const entry = this.#entries.get(name.toLowerCase());
    return entry !== undefined && (entry.refreshSqlOverride ?? entry.config.acceleration?.refresh_sql) !== undefined;
  }

  /** Replaces an accelerated dataset's refresh_sql for every later load or refresh, until restart. */
  setRefreshSql(name: string, refreshSql: string): DatasetStatus {
    const entry = this.#entries.get(name.toLowerCase());
    if (!entry) throw new QuarryError('DATASET_NOT_FOUND', `dataset "${name}" does not exist (datasets: ${this.names().join(', ') || 'none'})`);
    if (!isAccelerated(entry.config)) {
      throw new QuarryError('DATASET_NOT_ACCELERATED', `dataset "${entry.config.name}" is not accelerated: it is read live from its source, so it has no refresh_sql`);
    }
    entry.refreshSqlOverride = refreshSql;
    return this.#status(entry);
  }

  /**
   * Reloads an accelerated dataset. On failure the previous data stays and the error is
   * reported in the dataset's status.
   */
  async refresh(name: string, run: RunStatement, overrides: RefreshOverrides = {}): Promise<DatasetStatus> {
    const entry = this.#entries.get(name.toLowerCase());
    if (!entry) throw new QuarryError('DATASET_NOT_FOUND', `dataset "${name}" does not exist (datasets: ${this.names().join(', ') || 'none'})`);
    if (!entry.registered && isAccelerated(entry.config)) throw this.unavailable(entry.config.name) ?? new QuarryError('DATASET_NOT_READY', `dataset "${entry.config.name}" is not registered yet`);
    if (!entry.accelerationTable) {
      throw new QuarryError('DATASET_NOT_ACCELERATED', `dataset "${entry.config.name}" is not accelerated: it is read live from its source, so there is nothing to refresh`);
    }
    const plan = refreshPlan(entry.config, { ...overrides, refreshSql: overrides.refreshSql ?? entry.refreshSqlOverride });
    if (entry.refreshing) throw new QuarryError('DATASET_REFRESH_IN_PROGRESS', `dataset "${entry.config.name}" is already refreshing`);
    const hadData = entry.viewReadsTable || entry.state === 'ready';
    entry.state = 'refreshing';
    entry.refreshing = this.#timed(entry, 'refresh', () => loadDataset(entry, run, plan, 'refresh', this.#loadSteps));
    try {
      await entry.refreshing;
    } catch (error) {
      const failure = toQuarryError(error, 'DATASET_LOAD_FAILED');
      entry.state = hadData ? 'ready' : 'error';
      entry.error = failure.message;
      this.#log.error('dataset refresh failed; previous data kept', { dataset: entry.config.name, error: failure.message });
      throw new QuarryError('DATASET_LOAD_FAILED', `refresh of dataset "${entry.config.name}" failed: ${failure.message}`, { cause: error });
    } finally {
      entry.refreshing = undefined;
    }
    return this.#status(entry);
  }

  /** Runs one load or refresh and reports it (timing, error) to `onLoaded`. */
  async #timed(entry: DatasetEntry, kind: DatasetLoadEvent['kind'], work: () => Promise<void>): Promise<void> {
    const startTime = new Date();
    const started = performance.now();
    const report = (error: string | undefined) =>
      this.#onLoaded({
        dataset: entry.config.name,
        kind,
        accelerated: entry.accelerationTable !== undefined,
        startTime,
        endTime: new Date(),
        durationMs: performance.now() - started,
        error,
      });
    try {
      await work();
    } catch (error) {
      report(toQuarryError(error).message);
      throw error;
    }
    report(undefined);
  }

  /** When shutdown begins: datasets still waiting for their sources' columns stop waiting (requests aborted, no retries). */
  stopRegistering(): void {
    this.#closed = true;
    this.#retention?.close();
    this.#schemas.close();
    this.#fetch.abortSchemaRequests();
  }

  /** At shutdown: each load connection is closed now, or when the load running on it ends. */
  closeLoadConnections(): void {
    closeLoadConnections(this.#entries.values());
  }

  /** At shutdown: every dataset reports shutting down. */
  markShuttingDown(): void {
    this.stopRegistering();
    for (const entry of this.#entries.values()) entry.state = 'shutting_down';
  }

  #fail(entry: DatasetEntry, error: unknown): void {
    entry.state = 'error';
    entry.error = toQuarryError(error).message;
    this.#log.error('dataset failed to load', { dataset: entry.config.name, from: entry.config.from, error: entry.error });
  }
}
