import path from 'node:path';
import { mkdirSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { QuarryError, toQuarryError } from '../errors/quarry-error.js';
import type { Logger } from '../log.js';
import type { DatasetConfig } from '../manifest/types.js';
import type { DatasetState, DatasetStatus } from './engine-api.js';
import type { DatasetLoadEvent } from '../pipeline/types.js';
import type { EngineSource } from './sources/connector.js';
import { FetchDatasets } from './fetch/fetch-datasets.js';
import type { ConnectorRegistry } from './sources/connector-registry.js';
import { quoteIdentifier, quoteLiteral, quoteQualifiedName } from './sql-text.js';

interface DatasetEntry {
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
}

/** How long a connector may take to bring its local mirror up to date before a load. */
const LOAD_TIMEOUT_MS = 10 * 60_000;

export type RunStatement = (sql: string) => Promise<void>;

/** A table by its parts (unquoted) and as SQL text (quoted). */
export interface TableRef {
  readonly catalog: string;
  readonly schema: string;
  readonly name: string;
  readonly sql: string;
}

function tableRef(catalog: string, schema: string, name: string): TableRef {
  return { catalog, schema, name, sql: [catalog, schema, name].map(quoteIdentifier).join('.') };
}

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
  readonly #connectors: ConnectorRegistry;
  readonly #fetch: FetchDatasets;

  constructor(
    datasets: readonly DatasetConfig[],
    options: { baseDirectory: string; log: Logger; connectors: ConnectorRegistry; fetch?: FetchDatasets; onLoaded?: (event: DatasetLoadEvent) => void },
  ) {
    this.#baseDirectory = options.baseDirectory;
    this.#connectors = options.connectors;
    // Without the engine's fetch wiring (unit tests of file datasets), fetch sources cannot load.
    this.#fetch = options.fetch ?? new FetchDatasets({ connect: () => Promise.reject(new Error('no engine connection for fetched datasets')), log: options.log });
    this.#log = options.log;
    this.#onLoaded = options.onLoaded ?? (() => undefined);
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
      });
    }
  }

  names(): string[] {
    return [...this.#entries.values()].map((entry) => entry.config.name);
  }

  statuses(): DatasetStatus[] {
    return [...this.#entries.values()].map(toStatus);
  }

  status(name: string): DatasetStatus | undefined {
    const entry = this.#entries.get(name.toLowerCase());
    return entry && toStatus(entry);
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
    return { paths, directories };
  }

  /**
   * Creates the views (and attaches file-mode acceleration databases). Runs before lockdown,
   * on one connection. A dataset that cannot be registered is put in error and the rest go on.
   */
  async register(run: RunStatement): Promise<void> {
    for (const entry of this.#entries.values()) {
      try {
        entry.source = await this.#fetch.engineSource(entry.config, await this.#connectors.resolve(entry.config, { baseDirectory: this.#baseDirectory, log: this.#log }), run);
        for (const statement of entry.source.setupStatements ?? []) await run(statement);
        await ensureSchema(run, entry.config.name);
        await run(`CREATE OR REPLACE VIEW ${quoteQualifiedName(entry.config.name)} AS SELECT * FROM ${entry.source.tableExpression}`);
        if (isAccelerated(entry.config)) {
          entry.accelerationTable = await this.#accelerationTable(run, entry.config);
        } else {
          entry.state = 'ready';
          entry.loadedAt = new Date().toISOString();
          this.#log.info('dataset registered', { dataset: entry.config.name, from: entry.config.from, accelerated: false });
        }
      } catch (error) {
        this.#fail(entry, error);
      }
    }
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

  /** The table an accelerated dataset's rows live in, for appends. */
  accelerationTable(name: string): { table: TableRef; config: DatasetConfig } | undefined {
    const entry = this.#entries.get(name.toLowerCase());
    return entry?.accelerationTable && entry.state !== 'error' ? { table: entry.accelerationTable, config: entry.config } : undefined;
  }

  /** Loads every accelerated dataset, at most `parallelism` at once. */
  async loadAccelerated(connect: () => Promise<DuckDBConnection>, parallelism: number | undefined): Promise<void> {
    const pending = [...this.#entries.values()].filter((entry) => entry.state === 'initializing' && entry.accelerationTable);
    const limit = parallelism ?? pending.length;
    let next = 0;
    const worker = async () => {
      const connection = await connect();
      try {
        while (next < pending.length) {
          const entry = pending[next++]!;
          await this.#timed(entry, 'load', () => this.#load(entry, (sql) => connection.run(sql).then(() => undefined))).catch((error) => this.#fail(entry, error));
        }
      } finally {
        connection.closeSync();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, pending.length)) }, worker));
  }

  async #load(entry: DatasetEntry, run: RunStatement): Promise<void> {
    const started = performance.now();
    await entry.source!.synchronise?.(AbortSignal.timeout(LOAD_TIMEOUT_MS));
    const table = entry.accelerationTable!.sql;
    const view = quoteQualifiedName(entry.config.name);
    const select = `SELECT * FROM ${entry.source!.tableExpression}`;
    if (entry.viewReadsTable) {
      // A refresh: CREATE OR REPLACE is one transaction, so queries see the old rows or the new.
      await run(`CREATE OR REPLACE TABLE ${table} AS ${select}`);
    } else if (entry.config.acceleration?.mode !== 'file') {
      // First load in memory mode: the live view becomes the table in one transaction.
      await inTransaction(run, [`DROP VIEW IF EXISTS ${view}`, `CREATE TABLE ${table} AS ${select}`]);
    } else {
      // First load in file mode: DuckDB cannot write two databases in one transaction, so
      // the table is filled first and the view (serving the source until then) repointed.
      await run(`CREATE OR REPLACE TABLE ${table} AS ${select}`);
      await run(`CREATE OR REPLACE VIEW ${view} AS SELECT * FROM ${table}`);
    }
    await this.#fetch.afterLoad(entry.config.name);
    entry.viewReadsTable = true;
    entry.state = 'ready';
    entry.error = undefined;
    entry.loadedAt = new Date().toISOString();
    this.#log.info('dataset loaded', {
      dataset: entry.config.name,
      from: entry.config.from,
      accelerated: true,
      ms: Math.round(performance.now() - started),
    });
  }

  /**
   * Reloads an accelerated dataset. On failure the previous data stays and the error is
   * reported in the dataset's status.
   */
  async refresh(name: string, run: RunStatement): Promise<DatasetStatus> {
    const entry = this.#entries.get(name.toLowerCase());
    if (!entry) throw new QuarryError('DATASET_NOT_FOUND', `dataset "${name}" does not exist (datasets: ${this.names().join(', ') || 'none'})`);
    if (!entry.accelerationTable) {
      throw new QuarryError('DATASET_NOT_ACCELERATED', `dataset "${entry.config.name}" is not accelerated: it is read live from its source, so there is nothing to refresh`);
    }
    if (entry.refreshing) throw new QuarryError('DATASET_REFRESH_IN_PROGRESS', `dataset "${entry.config.name}" is already refreshing`);
    const hadData = entry.state === 'ready';
    entry.state = 'refreshing';
    entry.refreshing = this.#timed(entry, 'refresh', () => this.#load(entry, run));
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
    return toStatus(entry);
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

  markShuttingDown(): void {
    for (const entry of this.#entries.values()) entry.state = 'shutting_down';
  }

  #fail(entry: DatasetEntry, error: unknown): void {
    entry.state = 'error';
    entry.error = toQuarryError(error).message;
    this.#log.error('dataset failed to load', { dataset: entry.config.name, from: entry.config.from, error: entry.error });
  }
}

function isAccelerated(config: DatasetConfig): boolean {
  return config.acceleration?.enabled === true;
}

async function inTransaction(run: RunStatement, statements: readonly string[]): Promise<void> {
  await run('BEGIN TRANSACTION');
  try {
    for (const statement of statements) await run(statement);
    await run('COMMIT');
  } catch (error) {
    await run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

async function ensureSchema(run: RunStatement, name: string): Promise<void> {
  const dot = name.indexOf('.');
  if (dot > 0) await run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(name.slice(0, dot))}`);
}

function toStatus(entry: DatasetEntry): DatasetStatus {
  return {
    name: entry.config.name,
    from: entry.config.from,
    description: entry.config.description,
    state: entry.state,
    error: entry.error,
    accelerated: isAccelerated(entry.config),
    acceleration: entry.config.acceleration,
    loadedAt: entry.loadedAt,
  };
}
