import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { QuarryError } from '../errors/quarry-error.js';
import type { Principal } from '../pipeline/types.js';
import { FunctionCatalogue, functionRefusal, type AllowedFiles } from './function-policy.js';
import { quoteLiteral } from './sql-text.js';

/**
 * The engine variable a caller-scoped view filters by (`getvariable('quarry_caller')`): the
 * caller's principal id, or `*` for a caller that sees every row (`Principal.admin`). Unset
 * (the runtime's own queries, a schema probe) the view shows no caller's rows.
 */
export const CALLER_VARIABLE = 'quarry_caller';

/** The runtime itself (`runInternal`): it reads every caller's rows of a caller-scoped view. */
export const RUNTIME_CALLER: Principal = Object.freeze({ id: 'runtime', method: 'internal', canWrite: true, admin: true });

/** What plugins may tell the sandbox about the tables and views they own (`runtime.engine.sandbox`). */
export interface SandboxApi {
  /** Tables user SQL may not name (ACCESS_DENIED): rows a plugin stores and serves through a view. */
  hideTables(names: readonly string[]): void;
  /**
   * Views whose rows depend on the caller: a statement naming one is prepared with
   * `getvariable('quarry_caller')` set (CALLER_VARIABLE). Names are matched in the SQL text
   * (case-insensitive): give the view's own name, e.g. `task_history`.
   */
  scopeByCaller(names: readonly string[]): void;
  /**
   * What to tell a caller whose SQL needs an engine extension the runtime does not load, in
   * place of the engine's "INSTALL x; LOAD x;" (a refused statement), e.g. `spatial` →
   * "ST_* functions come with runtime.params.geo: enabled".
   */
  hintForExtension(extension: string, hint: string): void;
}

/** Where the runtime draws the line around user SQL beyond the statement's kind (docs/engine.md, "What user SQL may do"). */
export class EngineSandbox implements SandboxApi {
  readonly #catalogue = new FunctionCatalogue();
  /** The engine's own views over what function-policy.ts refuses: its log, other sessions' prepared statements. */
  readonly #hiddenTables = new Set<string>(['duckdb_logs', 'pg_prepared_statements']);
  readonly #scoped: string[] = [];
  readonly #extensionHints = new Map<string, string>();
  /** Connections a caller is set on (CALLER_VARIABLE), until they are released. */
  readonly #scopedConnections = new WeakSet<DuckDBConnection>();

  hideTables(names: readonly string[]): void {
    for (const name of names) this.#hiddenTables.add(name.toLowerCase().split('.').pop()!);
  }

  /** The tables user SQL may not name (lower-case, unqualified): listings of what can be queried leave them out. */
  hiddenTableNames(): string[] {
    return [...this.#hiddenTables];
  }

  scopeByCaller(names: readonly string[]): void {
    for (const name of names) this.#scoped.push(name.toLowerCase());
  }

  hintForExtension(extension: string, hint: string): void {
    this.#extensionHints.set(extension.toLowerCase(), hint);
  }

  extensionHint(extension: string): string | undefined {
    return this.#extensionHints.get(extension.toLowerCase());
  }

  /** Why user SQL may not run (function-policy.ts); undefined when it may. */
  refusal(connection: DuckDBConnection, sql: string, files: AllowedFiles): Promise<QuarryError | undefined> {
    return functionRefusal(connection, sql, { catalogue: this.#catalogue, files, hiddenTables: this.#hiddenTables });
  }

  /**
   * Prepares `sql` on `connection`, with the caller set for the caller-scoped views it names.
   * DuckDB binds `getvariable` when it binds the statement, at prepare and again when it
   * rebinds at execution (a parameter typed only then), so the variable stays set until the
   * connection is released: `callerCleanup` removes it before it goes back to the pool.
   */
  async prepare(connection: DuckDBConnection, sql: string, caller: Principal | undefined): Promise<DuckDBPreparedStatement> {
    const scope = caller === undefined || !this.#namesScoped(sql) ? undefined : caller.admin === true ? '*' : caller.id;
    if (scope !== undefined) {
      this.#scopedConnections.add(connection);
      await connection.run(`SET VARIABLE ${CALLER_VARIABLE} = ${quoteLiteral(scope)}`);
    }
    return connection.prepare(sql);
  }

  /** What must run before `connection` serves another caller (the caller's variable removed); undefined when nothing. */
  callerCleanup(connection: DuckDBConnection): (() => Promise<void>) | undefined {
    if (!this.#scopedConnections.delete(connection)) return undefined;
    return () => connection.run(`RESET VARIABLE ${CALLER_VARIABLE}`).then(() => undefined);
  }

  /** Whether the statement reads a caller-scoped view: prepared for one caller, it is no other caller's. */
  dependsOnCaller(sql: string): boolean {
    return this.#namesScoped(sql);
  }

  #namesScoped(sql: string): boolean {
    if (this.#scoped.length === 0) return false;
    const lower = sql.toLowerCase();
    return this.#scoped.some((name) => lower.includes(name));
  }
}
