import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Schema } from 'apache-arrow';
import { QuarryError, toQuarryError } from '../../errors/quarry-error.js';
import type { Logger } from '../../log.js';
import { formatDuration } from '../../units.js';
import type { DatasetConfig } from '../../manifest/types.js';
import type { DatasetSource, EngineSource, FetchSource, ScanFilter } from '../sources/connector.js';
import { quoteIdentifier, quoteLiteral } from '../sql-text.js';
import { columnDefinitions } from './duckdb-column-types.js';
import { plannedScans, type PlannedScan } from './plan-pushdown.js';
import { scanIntoTable } from './scan-into-table.js';
import type { LoadProgressSink } from '../load-progress.js';

type RunStatement = (sql: string) => Promise<void>;

/** How long a source may take to answer its schema (one attempt; see DatasetRegistry for retries). */
const SCHEMA_TIMEOUT_MS = 60_000;
/** How long one live scan or mirror update may take. */
const SCAN_TIMEOUT_MS = 10 * 60_000;
/** The in-memory database holding accelerated fetch datasets' staging tables. */
const STAGING_DATABASE = 'quarry_fetch';

/** A dataset read live through a fetch source. */
interface LiveFetch {
  readonly config: DatasetConfig;
  readonly source: FetchSource;
  readonly schema: Schema;
  readonly columns: string;
  readonly stubFile: string;
  /** Temp view every query connection has; the dataset's own view reads it. */
  readonly viewName: string;
  /** Temp table a query's scan fills, then the temp view reads. */
  readonly dataName: string;
  readonly mention: RegExp;
}

/** A live engine source with a local mirror brought up to date before the queries that read it. */
interface LiveMirror {
  readonly config: DatasetConfig;
  readonly source: EngineSource;
  readonly mention: RegExp;
  inFlight: Promise<void> | undefined;
}

/**
 * Fetch sources (the connector reads rows and hands over Arrow batches) inside the engine.
 *
 * Accelerated: each load fills a staging table in an attached in-memory database through the
 * appender; the registry's load then replaces the acceleration table from it in one statement
 * (queries see the old rows or the new), after which the staging copy is emptied. Until the
 * first load completes, the dataset is read live (below), never answered from an empty table.
 *
 * Live: the dataset's view reads a per-connection TEMP view, which normally reads an empty
 * typed parquet stub. Before a query that names the dataset runs, the engine plans it against
 * the stub (a parquet scan, so DuckDB pushes columns and filters into it and shows them in the
 * plan), scans the source with that pushdown into a TEMP table of the query's connection, points
 * the TEMP view at it, and prepares the query. Temp objects are private to a connection, so two
 * queries at once never see each other's rows. When the connection is released the TEMP view
 * reads the stub again and the rows are dropped. (A JS table function cannot do this: it runs
 * synchronously on the JS thread and could not await the network.)
 */
export class FetchDatasets {
  /** How long one request for a source's columns may take (default SCHEMA_TIMEOUT_MS). */
  readonly schemaTimeoutMs: number;
  readonly #connect: () => Promise<DuckDBConnection>;
  readonly #log: Logger;
  readonly #live = new Map<string, LiveFetch>();
  readonly #mirrors: LiveMirror[] = [];
  readonly #staging = new Map<string, { table: string; columns: string }>();
  /** The live datasets' temp views each query connection has (a dataset registered later is added to connections made before). */
  readonly #initialised = new WeakMap<DuckDBConnection, Set<string>>();
  readonly #sources = new Set<DatasetSource>();
  readonly #closing = new AbortController();
  #stubDirectory: string | undefined;
  /** The datasets a statement reads through the manifest's views (whose names do not mention them). */
  #throughViews: (sql: string) => readonly string[] = () => [];

  constructor(options: { connect: () => Promise<DuckDBConnection>; log: Logger; schemaTimeoutMs?: number }) {
    this.#connect = options.connect;
    this.#log = options.log;
    this.schemaTimeoutMs = options.schemaTimeoutMs ?? SCHEMA_TIMEOUT_MS;
  }

  /**
   * The engine-readable form of a resolved engine source. One with a mirror is brought up to
   * date first (unless the registry just did), so its view finds files.
   */
  async engineSource(config: DatasetConfig, source: EngineSource, alreadySynchronised = false): Promise<EngineSource> {
    const accelerated = config.acceleration?.enabled === true;
    this.#sources.add(source);
    if (!source.synchronise) return source;
    if (!alreadySynchronised) await source.synchronise(AbortSignal.timeout(SCAN_TIMEOUT_MS));
    if (!accelerated) {
      this.#mirrors.push({ config, source, mention: mentionPattern(config.name), inFlight: undefined });
      return source;
    }
    // The first load follows at once: the mirror was just brought up to date, so that load
    // reads it as it is instead of fetching everything from upstream a second time.
    let justSynchronised = true;
    const synchronise = source.synchronise.bind(source);
    return {
      kind: 'engine',
      tableExpression: source.tableExpression,
      allowedPaths: source.allowedPaths,
      allowedDirectories: source.allowedDirectories,
      ...(source.setupStatements ? { setupStatements: source.setupStatements } : {}),
      synchronise: (signal, progress) => {
        if (!justSynchronised) return synchronise(signal, progress);
        justSynchronised = false;
        return Promise.resolve();
      },
      ...(source.close ? { close: source.close.bind(source) } : {}),
    };
  }

  /**
   * Asks a fetch source its columns, for at most SCHEMA_TIMEOUT_MS and never past shutdown
   * (`close` aborts every request still waiting). A failure names the dataset and the source.
   */
  async askSchema(config: DatasetConfig, source: FetchSource): Promise<Schema> {
    this.#sources.add(source);
    const timeout = AbortSignal.timeout(this.schemaTimeoutMs);
    const signal = AbortSignal.any([timeout, this.#closing.signal]);
    try {
      // Raced with the signal: a source that does not honour it still cannot hold the dataset.
      return await Promise.race([source.schema(signal), aborted(signal)]);
    } catch (error) {
      if (this.#closing.signal.aborted) throw new QuarryError('RUNTIME_SHUTTING_DOWN', `dataset ${config.name}: the runtime stopped while its source (${config.from}) was asked for its columns`, { cause: error });
      if (timeout.aborted) {
        // The abort's own words ("aborted due to timeout") say nothing: the source's account of its wait does.
        const reason = source.schemaWait?.() ?? 'no answer';
        throw new QuarryError('DATASET_LOAD_FAILED', `dataset ${config.name}: its source (${config.from}) did not give its columns within ${formatDuration(this.schemaTimeoutMs)} (${reason})`, { cause: error, details: { timed_out: true } });
      }
      throw new QuarryError('DATASET_LOAD_FAILED', `dataset ${config.name}: could not read its columns from ${config.from}: ${toQuarryError(error).message}`, { cause: error });
    }
  }

  /**
   * The directory of the live datasets' empty typed stubs, created on first use. The engine
   * keeps it readable (and writable by the runtime) after lockdown: a fetch dataset whose
   * columns come after start-up writes its stub there then.
   */
  stubDirectory(): string {
    this.#stubDirectory ??= mkdtempSync(path.join(os.tmpdir(), 'quarry-live-'));
    return this.#stubDirectory;
  }

  /** The engine-readable form of a fetch source whose columns are `schema`: its views (and staging table when accelerated). */
  async fetchedSource(config: DatasetConfig, source: FetchSource, schema: Schema, run: RunStatement): Promise<EngineSource> {
    const columns = columnDefinitions(schema, config.name);
    const local = localName(config.name);
    return config.acceleration?.enabled === true ? this.#staged(config, source, schema, columns, local, run) : this.#liveView(config, source, schema, columns, local, run);
  }

  /**
   * An accelerated fetch dataset reads `quarry_fetch.main.<name>`, a view that until the first
   * load reads the source live (as a live dataset does, so queries are never answered from an
   * empty table) and from each load's synchronise on reads the rows just fetched.
   */
  async #staged(config: DatasetConfig, source: FetchSource, schema: Schema, columns: string, local: string, run: RunStatement): Promise<EngineSource> {
    const live = await this.#liveView(config, source, schema, columns, local, run);
    for (const statement of live.setupStatements ?? []) await run(statement);
    if (this.#staging.size === 0) await run(`ATTACH IF NOT EXISTS ':memory:' AS ${STAGING_DATABASE}`);
    const view = `${STAGING_DATABASE}.main.${quoteIdentifier(local)}`;
    const rowsName = `${local}__rows`;
    const rows = `${STAGING_DATABASE}.main.${quoteIdentifier(rowsName)}`;
    await run(`CREATE OR REPLACE TABLE ${rows} (${columns})`);
    await run(`CREATE OR REPLACE VIEW ${view} AS SELECT * FROM ${live.tableExpression}`);
    this.#staging.set(config.name.toLowerCase(), { table: rows, columns });
    return {
      kind: 'engine',
      tableExpression: view,
      allowedPaths: live.allowedPaths,
      allowedDirectories: [],
      synchronise: async (signal, progress) => {
        const started = performance.now();
        const connection = await this.#connect();
        try {
          await connection.run(`CREATE OR REPLACE TABLE ${rows} (${columns})`);
          if (progress && source.estimateRows) reportEstimate(source.estimateRows(signal), progress, (error) => this.#log.debug('the source gave no row estimate', { dataset: config.name, error: (error as Error).message }));
          const count = await scanIntoTable({ connection, source, schema, request: { signal }, table: { catalog: STAGING_DATABASE, schema: 'main', name: rowsName }, progress });
          await connection.run(`CREATE OR REPLACE VIEW ${view} AS SELECT * FROM ${rows}`);
          this.#log.debug('fetched dataset rows into staging', { dataset: config.name, rows: count, ms: Math.round(performance.now() - started) });
        } finally {
          connection.closeSync();
        }
      },
      close: () => source.close?.() ?? Promise.resolve(),
    };
  }

  /** After a load copied the staged rows into the acceleration table: drop the staged copy; the dataset is no longer read live. */
  async afterLoad(dataset: string): Promise<void> {
    const staging = this.#staging.get(dataset.toLowerCase());
    if (!staging) return;
    this.#live.delete(dataset.toLowerCase());
    const connection = await this.#connect();
    try {
      await connection.run(`CREATE OR REPLACE TABLE ${staging.table} (${staging.columns})`);
    } finally {
      connection.closeSync();
    }
  }

  async #liveView(config: DatasetConfig, source: FetchSource, schema: Schema, columns: string, local: string, run: RunStatement): Promise<EngineSource> {
    const stubFile = path.join(this.stubDirectory(), `${local}.parquet`);
    const stubTable = quoteIdentifier(`quarry_stub_${local}`);
    await run(`CREATE OR REPLACE TEMP TABLE ${stubTable} (${columns})`);
    await run(`COPY temp.main.${stubTable} TO ${quoteLiteral(stubFile)} (FORMAT parquet)`);
    await run(`DROP TABLE temp.main.${stubTable}`);
    const live: LiveFetch = {
      config,
      source,
      schema,
      columns,
      stubFile,
      viewName: `quarry_live_${local}`,
      dataName: `quarry_live_rows_${local}`,
      mention: mentionPattern(config.name),
    };
    this.#live.set(config.name.toLowerCase(), live);
    return {
      kind: 'engine',
      tableExpression: `temp.main.${quoteIdentifier(live.viewName)}`,
      allowedPaths: [stubFile],
      allowedDirectories: [],
      // The registering connection needs the temp view too: the dataset's view is bound against it.
      setupStatements: [stubViewStatement(live)],
      close: () => source.close?.() ?? Promise.resolve(),
    };
  }

  /**
   * Readies a query connection for one statement: gives it the live datasets' temp views (once),
   * brings the mirrors of live datasets it names up to date, and scans the live fetch datasets
   * it reads. Returns what to run before the connection goes back to the pool, or undefined.
   */
  /**
   * Tells which datasets a statement reads through views (core/engine/views.ts): a query on a
   * view over a live dataset must fill that dataset as if it named it, or it reads the empty stub.
   */
  readThroughViews(datasetsRead: (sql: string) => readonly string[]): void {
    this.#throughViews = datasetsRead;
  }

  /** Whether the statement may read the dataset: its name in the text, or a view in the text that reads it. */
  #reads(sql: string): (dataset: { readonly config: DatasetConfig; readonly mention: RegExp }) => boolean {
    let through: ReadonlySet<string> | undefined;
    return (dataset) => dataset.mention.test(sql) || (through ??= new Set(this.#throughViews(sql))).has(dataset.config.name.toLowerCase());
  }

  async beforeQuery(connection: DuckDBConnection, sql: string): Promise<(() => Promise<void>) | undefined> {
    await this.beforePrepare(connection, sql);
    return this.fill(connection, sql);
  }

  /**
   * What a statement needs before DuckDB binds it: the live datasets' temp views (once per
   * connection; until `fill` they read the empty typed stubs) and, for live datasets with a
   * local mirror that it names, the mirror brought up to date (a file glob binds at prepare).
   */
  async beforePrepare(connection: DuckDBConnection, sql: string): Promise<void> {
    if (this.#live.size === 0 && this.#mirrors.length === 0) return;
    let views = this.#initialised.get(connection);
    if (!views) this.#initialised.set(connection, (views = new Set()));
    for (const live of this.#live.values()) {
      if (views.has(live.viewName)) continue;
      await connection.run(stubViewStatement(live));
      views.add(live.viewName);
    }
    await Promise.all(this.#mirrors.filter(this.#reads(sql)).map((mirror) => this.#synchronise(mirror)));
  }

  /** Whether the SQL text may read a live fetch dataset (whose rows `fill` would fetch). */
  readsLive(sql: string): boolean {
    const reads = this.#reads(sql);
    for (const live of this.#live.values()) if (reads(live)) return true;
    return false;
  }

  /**
   * Scans the live fetch datasets the statement reads into the connection's temp tables and
   * points their views at them (after `beforePrepare`). Returns what to run before the
   * connection goes back to the pool, or undefined when nothing was read.
   */
  async fill(connection: DuckDBConnection, sql: string): Promise<(() => Promise<void>) | undefined> {
    const named = [...this.#live.values()].filter(this.#reads(sql));
    if (named.length === 0) return undefined;
    const scans = await this.#plan(connection, sql);
    const filled: LiveFetch[] = [];
    const cleanup = async () => {
      for (const live of filled) {
        await connection.run(stubViewStatement(live));
        await connection.run(`DROP TABLE IF EXISTS temp.main.${quoteIdentifier(live.dataName)}`);
      }
    };
    try {
      for (const live of named) {
        // With a plan, a dataset the plan does not scan is left alone; without one, read it whole.
        const scan = scans ? scans.get(live.stubFile) : { columns: live.schema.fields.map((field) => field.name), filters: [] };
        if (!scan) continue;
        filled.push(live);
        await this.#scan(connection, live, scan);
      }
    } catch (error) {
      await cleanup().catch(() => undefined);
      throw error;
    }
    return filled.length > 0 ? cleanup : undefined;
  }

  /**
   * The scans the optimised plan makes; when DuckDB cannot serialise that (it fails on some
   * plans, e.g. LIMIT with OFFSET on 1.5.6), the unoptimised plan still tells which datasets
   * are read (whole, with no filter). Undefined when neither exists: whole datasets are read.
   */
  async #plan(connection: DuckDBConnection, sql: string): Promise<Map<string, PlannedScan> | undefined> {
    const stubs = new Set([...this.#live.values()].map((live) => live.stubFile));
    for (const optimize of [true, false]) {
      try {
        const reader = await connection.runAndReadAll(`SELECT json_serialize_plan(${quoteLiteral(sql)}, optimize := ${optimize})`);
        const scans = plannedScans(String(reader.getRows()[0]?.[0] ?? ''), stubs);
        if (scans) return scans;
      } catch {
        // Not plannable on its own (a statement json_serialize_plan does not take).
      }
    }
    return undefined;
  }

  async #scan(connection: DuckDBConnection, live: LiveFetch, scan: PlannedScan): Promise<void> {
    const started = performance.now();
    // A query that reads no column (count(*)) still needs the row count: ask for the first.
    const columns = scan.columns.length > 0 ? scan.columns : [live.schema.fields[0]!.name];
    const data = quoteIdentifier(live.dataName);
    await connection.run(`CREATE OR REPLACE TEMP TABLE ${data} (${live.columns})`);
    let rows: number;
    try {
      rows = await scanIntoTable({
        connection,
        source: live.source,
        schema: live.schema,
        request: { signal: AbortSignal.timeout(SCAN_TIMEOUT_MS), columns, filters: scan.filters, ...(scan.limit !== undefined ? { limit: scan.limit } : {}) },
        table: { catalog: 'temp', schema: 'main', name: live.dataName },
      });
    } catch (error) {
      const failure = toQuarryError(error);
      this.#log.warn('live dataset read failed', { dataset: live.config.name, from: live.config.from, error: failure.message });
      // The source's own answer (its message names the dataset), as its other doors give it.
      if (error instanceof QuarryError && live.source.passThroughCodes?.has(error.code)) throw error;
      throw new QuarryError('DATASET_SOURCE_FAILED', `dataset ${live.config.name} is read live from ${live.config.from}, and reading it failed: ${failure.message}`, { cause: error });
    }
    await connection.run(`CREATE OR REPLACE TEMP VIEW ${quoteIdentifier(live.viewName)} AS SELECT * FROM temp.main.${data}`);
    this.#log.debug('live dataset scanned', {
      dataset: live.config.name,
      columns: columns.join(','),
      filters: scan.filters.map(describeFilter).join(' AND '),
      limit: scan.limit,
      rows,
      ms: Math.round(performance.now() - started),
    });
  }

  /** One mirror update at a time per dataset; queries arriving meanwhile share it. */
  async #synchronise(mirror: LiveMirror): Promise<void> {
    mirror.inFlight ??= mirror.source.synchronise!(AbortSignal.timeout(SCAN_TIMEOUT_MS)).finally(() => {
      mirror.inFlight = undefined;
    });
    try {
      await mirror.inFlight;
    } catch (error) {
      throw new QuarryError('DATASET_SOURCE_FAILED', `dataset ${mirror.config.name} is read live from ${mirror.config.from}, and updating its local copy failed: ${toQuarryError(error).message}`, { cause: error });
    }
  }

  /** Aborts every request for a source's columns still waiting (shutdown begins). */
  abortSchemaRequests(): void {
    this.#closing.abort();
  }

  /** At shutdown: releases the sources (clients, WASM databases) and removes the stubs. */
  close(): void {
    this.#closing.abort();
    const sources = [...this.#sources];
    this.#sources.clear();
    for (const source of sources) {
      source.close?.().catch((error: unknown) => this.#log.warn('a dataset source failed to close', { error: toQuarryError(error).message }));
    }
    if (this.#stubDirectory) rmSync(this.#stubDirectory, { recursive: true, force: true });
  }
}

/** Rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason as Error);
    else signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });
}

function stubViewStatement(live: LiveFetch): string {
  return `CREATE OR REPLACE TEMP VIEW ${quoteIdentifier(live.viewName)} AS SELECT * FROM read_parquet(${quoteLiteral(live.stubFile)})`;
}

/** `sales.Orders` → `sales__orders`: a name safe in file names and temp identifiers. */
function localName(dataset: string): string {
  return dataset.toLowerCase().replaceAll('.', '__').replace(/[^a-z0-9_]/g, '_');
}

/** Whether SQL text may name the dataset (its last name part as a word); a cheap pre-check before planning. */
function mentionPattern(dataset: string): RegExp {
  const last = dataset.split('.').at(-1)!;
  return new RegExp(`(^|[^A-Za-z0-9_])${last.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_])`, 'i');
}

export function describeFilter(filter: ScanFilter): string {
  const show = (value: unknown) => (value instanceof Date ? value.toISOString() : String(value));
  if (filter.operator === 'IN') return `${filter.column} IN (${filter.values.map(show).join(', ')})`;
  if (!('value' in filter)) return `${filter.column} ${filter.operator}`;
  return `${filter.column} ${filter.operator} ${show(filter.value)}`;
}

/** The source's row estimate, when it comes, as the load's total; an estimate never fails a load. */
function reportEstimate(estimate: Promise<number | undefined>, progress: LoadProgressSink, onError: (error: unknown) => void): void {
  estimate.then((rows) => {
    if (rows !== undefined && Number.isFinite(rows) && rows >= 0) progress.total({ rows });
  }, onError);
}
