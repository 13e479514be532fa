import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { QuarryError } from '../errors/quarry-error.js';
import { FILE_READERS, statementSurface, type FileRead } from './statement-surface.js';

/**
 * Functions user SQL may not call, though the statement calling them is a SELECT, by family
 * and why (docs/engine.md, "What user SQL may do").
 */
const REFUSED_FAMILIES: ReadonlyArray<readonly [string, readonly string[]]> = [
  // Logging changes engine settings for everyone; `storage='file'` with a path the engine may
  // not write aborts the process from a background thread (DuckDB 1.5). The log can hold
  // other callers' statements.
  ['it changes or reads the engine\'s log', ['enable_logging', 'disable_logging', 'truncate_duckdb_logs', 'write_log', 'duckdb_logs', 'duckdb_log_contexts', 'duckdb_logs_parsed']],
  ['it changes the engine\'s settings', ['enable_profiling', 'disable_profiling', 'enable_peg_parser', 'disable_peg_parser', 'check_peg_parser']],
  ['it writes the engine\'s databases', ['checkpoint', 'force_checkpoint']],
  // SQL inside a string is parsed only when the function runs: the statement policy never sees it.
  ['it runs SQL the runtime does not classify', ['query', 'query_table', 'json_execute_serialized_sql']],
  // They read memory at an address given as a number: any other number crashes the process.
  ['it reads process memory at an address', ['arrow_scan', 'arrow_scan_dumb']],
  ['it reveals the engine\'s secrets', ['duckdb_secrets', 'which_secret', 'duckdb_secret_types']],
  ['it lists the engine\'s own files', ['duckdb_temporary_files', 'duckdb_external_file_cache']],
  ['it changes a sequence', ['nextval']],
  // The seed belongs to a pooled connection: the next caller's random() would follow it.
  ['it changes the connection\'s random seed', ['setseed']],
];

const REFUSED_FUNCTIONS = new Map<string, string>(REFUSED_FAMILIES.flatMap(([reason, names]) => names.map((name) => [name, reason] as const)));

/**
 * The engine's own table functions user SQL may call: generators, the catalogue's read-only
 * views, and the file readers (whose paths are checked, below). A table function of the engine
 * not named here (one a newer engine adds) is refused until it is reviewed; table functions
 * and macros the runtime or a plugin creates (not the engine's own) are deliberate and allowed.
 */
const ALLOWED_TABLE_FUNCTIONS = new Set([
  'range', 'generate_series', 'unnest', 'repeat', 'repeat_row', 'json_each', 'json_tree', 'summary',
  'test_all_types', 'test_vector_types', 'sql_auto_complete', 'icu_calendar_names', 'pg_timezone_names', 'histogram', 'histogram_values',
  'duckdb_columns', 'duckdb_constraints', 'duckdb_databases', 'duckdb_dependencies', 'duckdb_functions', 'duckdb_indexes', 'duckdb_keywords',
  'duckdb_schemas', 'duckdb_sequences', 'duckdb_tables', 'duckdb_types', 'duckdb_views', 'duckdb_optimizers', 'duckdb_extensions',
  'duckdb_settings', 'duckdb_variables', 'duckdb_memory', 'duckdb_approx_database_count', 'duckdb_connection_count', 'duckdb_coordinate_systems',
  'duckdb_profiling_settings', 'duckdb_table_sample',
  'pragma_collations', 'pragma_database_size', 'pragma_metadata_info', 'pragma_platform', 'pragma_show', 'pragma_storage_info',
  'pragma_table_info', 'pragma_user_agent', 'pragma_version',
  ...FILE_READERS,
]);

/** The engine's table functions by name: built in (`internal`) or created by the runtime and its plugins. */
export class FunctionCatalogue {
  #tableFunctions: Map<string, 'engine' | 'runtime'> | undefined;
  #loading: Promise<Map<string, 'engine' | 'runtime'>> | undefined;

  /** How `name` is known as a table function; undefined when it is none (a scalar, or no function). */
  async tableFunction(connection: DuckDBConnection, name: string, reloadIfUnknown: boolean): Promise<'engine' | 'runtime' | undefined> {
    let known = this.#tableFunctions ?? (await this.#load(connection));
    // A macro a plugin created after the catalogue was read.
    if (!known.has(name) && reloadIfUnknown) known = await this.#load(connection);
    return known.get(name);
  }

  #load(connection: DuckDBConnection): Promise<Map<string, 'engine' | 'runtime'>> {
    this.#loading ??= connection
      .runAndReadAll("SELECT DISTINCT function_name, internal FROM duckdb_functions() WHERE function_type IN ('table', 'table_macro')")
      .then((reader) => {
        const functions = new Map<string, 'engine' | 'runtime'>();
        for (const [name, internal] of reader.getRows()) functions.set(String(name).toLowerCase(), internal === true ? 'engine' : 'runtime');
        this.#tableFunctions = functions;
        return functions;
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }
}

/** Where user SQL may read files: the manifest's dataset files and directories (absolute). */
export interface AllowedFiles {
  readonly paths: readonly string[];
  readonly directories: readonly string[];
}

/** What the policy checks a statement against. */
export interface FunctionPolicyContext {
  readonly catalogue: FunctionCatalogue;
  readonly files: AllowedFiles;
  /** Tables only the runtime reads (lower case): a plugin's stored rows behind a view it scopes. */
  readonly hiddenTables: ReadonlySet<string>;
}

/**
 * Whether a path (or glob) user SQL names lies within the datasets' files. DuckDB itself
 * lets any query read its temp directory (spill files of other queries) and the files of
 * attached databases (file-mode accelerations), whatever `allowed_paths` says, so the
 * runtime checks the path first. A glob is allowed when the directory before its first
 * wildcard is a dataset directory (or within one).
 */
function fileAllowed(read: FileRead, allowed: AllowedFiles): boolean {
  if (read.path === undefined || /^[a-z][a-z0-9+.-]*:\/\//i.test(read.path)) return false;
  const resolved = path.resolve(read.path);
  if (allowed.paths.some((allowedPath) => path.resolve(allowedPath) === resolved)) return true;
  const wildcard = resolved.search(/[*?[{]/);
  const fixed = wildcard === -1 ? resolved : resolved.slice(0, wildcard);
  return allowed.directories.some((directory) => {
    const base = path.resolve(directory) + path.sep;
    return fixed.startsWith(base) && !resolved.slice(base.length).split(path.sep).includes('..');
  });
}

function notAllowed(name: string, reason: string): QuarryError {
  return new QuarryError('STATEMENT_NOT_ALLOWED', `${name}() is not allowed in user SQL: ${reason}`);
}

/**
 * Why a statement may not run: it calls a refused function or an engine table function not on
 * the list (STATEMENT_NOT_ALLOWED), names a file outside the datasets' or a table only the
 * runtime reads (ACCESS_DENIED), found in the engine's own parse of it; undefined when it may run.
 */
export async function functionRefusal(connection: DuckDBConnection, sql: string, context: FunctionPolicyContext): Promise<QuarryError | undefined> {
  const surface = await statementSurface(connection, sql);
  for (const name of surface.functions) {
    const reason = REFUSED_FUNCTIONS.get(name);
    if (reason !== undefined) return notAllowed(name, reason);
  }
  for (const name of surface.functions) {
    if (ALLOWED_TABLE_FUNCTIONS.has(name)) continue;
    // Called in FROM and unknown even after a reload: not certainly a read.
    const inFrom = surface.tableFunctions.has(name);
    const known = await context.catalogue.tableFunction(connection, name, inFrom);
    if (known === 'engine' || (known === undefined && inFrom)) return notAllowed(name, 'it is not among the engine\'s table functions user SQL may call (docs/engine.md)');
  }
  for (const table of surface.tables) {
    if (context.hiddenTables.has(table)) return new QuarryError('ACCESS_DENIED', `${table} is not readable by user SQL: it holds what the runtime keeps for itself or serves per caller (docs/engine.md)`);
  }
  for (const read of surface.fileReads) {
    if (fileAllowed(read, context.files)) continue;
    const what = read.path === undefined ? 'a path computed at run time' : `"${read.path}"`;
    return new QuarryError('ACCESS_DENIED', `${read.via} may read only the manifest's dataset files, not ${what}: query the datasets by name`);
  }
  return undefined;
}
