import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from '../log.js';
import type { ViewConfig } from '../manifest/types.js';
import { referencedDatasets } from '../pipeline/statement-policy.js';
import { StatementType } from './duckdb-api.js';
import { quoteIdentifier, quoteQualifiedName } from './sql-text.js';

/** A manifest view as `engine.views()` reports it (the MCP list_datasets tool shows it). */
export interface ViewStatus {
  readonly name: string;
  readonly description: string | undefined;
  readonly sql: string;
  /** The datasets it reads, directly or through other views. */
  readonly reads: readonly string[];
  /** `ready`: queries may name it; `waiting`: a dataset it reads is not registered yet; `error`: it does not bind. */
  readonly state: 'ready' | 'waiting' | 'error';
  readonly error: string | undefined;
}

/** Why user SQL could not run `sql` (the engine's sandbox), or undefined when it could. */
export type ViewRefusal = (connection: DuckDBConnection, sql: string) => Promise<Error | undefined>;

interface ViewEntry {
  readonly config: ViewConfig;
  /** Datasets and views its SQL names (lower-case), from the text. */
  readonly mentions: readonly string[];
  state: ViewStatus['state'];
  error: string | undefined;
}

/**
 * The manifest's `views:`, made engine views once what they read is registered. A view is a
 * name for its SELECT: it reads the datasets' current rows on every query, so loads and
 * refreshes reach it by themselves; what it reads is known from its text, so a query naming
 * it is treated as reading those datasets too (cached results of it go when they change).
 * Views are created after the engine is locked down, and their SQL must pass the sandbox user
 * SQL passes: a view binds only what user SQL could read, and calls no function user SQL may not.
 */
export class ManifestViews {
  readonly #entries: ViewEntry[];
  readonly #log: Logger;
  readonly #datasetNames: () => readonly string[];
  readonly #refusal: ViewRefusal;
  /** Serialises `create` calls: a late dataset may register while start-up creates views. */
  #chain: Promise<unknown> = Promise.resolve();

  constructor(views: readonly ViewConfig[], options: { log: Logger; datasetNames: () => readonly string[]; refusal?: ViewRefusal }) {
    this.#log = options.log;
    this.#refusal = options.refusal ?? (async () => undefined);
    this.#datasetNames = options.datasetNames;
    const names = [...options.datasetNames(), ...views.map((view) => view.name)];
    this.#entries = views.map((config) => ({
      config,
      mentions: referencedDatasets(config.sql, names).filter((name) => name !== config.name.toLowerCase()),
      state: 'waiting',
      error: undefined,
    }));
  }

  names(): string[] {
    return this.#entries.map((entry) => entry.config.name);
  }

  statuses(): ViewStatus[] {
    return this.#entries.map((entry) => ({
      name: entry.config.name,
      description: entry.config.description,
      sql: entry.config.sql,
      reads: this.#datasetsRead(entry, new Set()),
      state: entry.state,
      error: entry.error,
    }));
  }

  /** The datasets a statement reads through the views it names (lower-case); none without views. */
  datasetsReadThrough(sql: string): string[] {
    if (this.#entries.length === 0) return [];
    const views = referencedDatasets(sql, this.names());
    return views.length === 0 ? [] : this.expand(views).filter((name) => !views.includes(name));
  }

  /**
   * The names a statement reads, given the datasets and views it names: each view's own
   * datasets are added (transitively), the view's name is kept.
   */
  expand(names: readonly string[]): string[] {
    const out = new Set(names);
    for (const name of names) {
      const entry = this.#entry(name);
      if (entry) for (const dataset of this.#datasetsRead(entry, new Set())) out.add(dataset.toLowerCase());
    }
    return [...out];
  }

  /**
   * Creates every view not created yet whose SQL binds now, in rounds (a view over another
   * view follows it), on `connection`. `isRegistered` says whether a dataset's name is
   * queryable: a view reading one that is not stays `waiting`, not `error`. Calls `onCreated`
   * with each new view's name. Safe to call again after a late dataset registers.
   */
  create(connection: DuckDBConnection, isRegistered: (dataset: string) => boolean, onCreated: (view: string) => void): Promise<void> {
    const run = this.#chain.then(() => this.#createPending(connection, isRegistered, onCreated));
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #createPending(connection: DuckDBConnection, isRegistered: (dataset: string) => boolean, onCreated: (view: string) => void): Promise<void> {
    const datasets = new Set(this.#datasetNames().map((name) => name.toLowerCase()));
    let progressed = true;
    while (progressed) {
      progressed = false;
      for (const entry of this.#entries) {
        if (entry.state === 'ready') continue;
        const missing = entry.mentions.filter((name) => (datasets.has(name) ? !isRegistered(name) : this.#entry(name)?.state !== 'ready'));
        const outcome = await this.#createOne(connection, entry);
        if (outcome === undefined) {
          entry.state = 'ready';
          entry.error = undefined;
          progressed = true;
          this.#log.info('view created', { view: entry.config.name, reads: this.#datasetsRead(entry, new Set()).join(',') });
          onCreated(entry.config.name);
          continue;
        }
        const waiting = missing.length > 0;
        const message = waiting ? `waits for ${missing.join(', ')} to be registered (${outcome})` : outcome;
        if (entry.error !== message) this.#log[waiting ? 'info' : 'error'](waiting ? 'view waits for what it reads' : 'view does not bind', { view: entry.config.name, error: message });
        entry.state = waiting ? 'waiting' : 'error';
        entry.error = message;
      }
    }
  }

  /** Undefined when the view was created; otherwise why not. Only one SELECT is accepted. */
  async #createOne(connection: DuckDBConnection, entry: ViewEntry): Promise<string | undefined> {
    const sql = entry.config.sql.trim().replace(/;\s*$/, '');
    try {
      const prepared = await connection.prepare(sql);
      const type = prepared.statementType;
      prepared.destroySync();
      if (type !== StatementType.SELECT) return `views[].sql must be one SELECT statement; "${entry.config.name}" is ${StatementType[type] ?? 'another statement'}`;
      // Every reader runs the view's SQL: it may do only what user SQL may (no file outside the datasets', no refused function).
      const refused = await this.#refusal(connection, sql);
      if (refused) return `views[].sql may do only what user SQL may: ${refused.message}`;
      // A view named schema.name lives in that schema, made here if no dataset made it.
      if (entry.config.name.includes('.')) await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(entry.config.name.split('.')[0]!)}`);
      await connection.run(`CREATE OR REPLACE VIEW ${quoteQualifiedName(entry.config.name)} AS ${sql}`);
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  #entry(name: string): ViewEntry | undefined {
    const key = name.toLowerCase();
    return this.#entries.find((entry) => entry.config.name.toLowerCase() === key);
  }

  #datasetsRead(entry: ViewEntry, seen: Set<ViewEntry>): string[] {
    seen.add(entry);
    const out = new Set<string>();
    const datasets = new Set(this.#datasetNames().map((name) => name.toLowerCase()));
    for (const name of entry.mentions) {
      if (datasets.has(name)) {
        out.add(name);
        continue;
      }
      const view = this.#entry(name);
      if (view && !seen.has(view)) for (const dataset of this.#datasetsRead(view, seen)) out.add(dataset);
    }
    return [...out];
  }
}
