import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { QuarryError } from '../errors/quarry-error.js';
import { statementSurface, type FileRead } from './statement-surface.js';

/**
 * Functions user SQL may not call, though the statement calling them is a SELECT: they change
 * engine state or run SQL the runtime never classified. Each family, and why:
 */
const REFUSED_FUNCTIONS = new Map<string, string>([
  // Logging: changes engine settings for everyone; `storage='file'` with a path the engine
  // cannot write aborts the process from a background thread (DuckDB 1.5).
  ['enable_logging', 'it changes the engine\'s logging settings'],
  ['disable_logging', 'it changes the engine\'s logging settings'],
  ['truncate_duckdb_logs', 'it deletes the engine\'s log'],
  // Checkpoints write the engine's databases (acceleration files) outside any user write.
  ['checkpoint', 'it writes the engine\'s databases'],
  ['force_checkpoint', 'it writes the engine\'s databases'],
  // SQL inside a string is parsed only when the function runs: the statement policy never sees it.
  ['query', 'it runs SQL text the runtime does not classify'],
  ['query_table', 'it reads tables named at run time, past the runtime\'s checks'],
]);

/** Where user SQL may read files: the manifest's dataset files and directories (absolute). */
export interface AllowedFiles {
  readonly paths: readonly string[];
  readonly directories: readonly string[];
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

/**
 * Why a read statement may not run: it calls a refused function (STATEMENT_NOT_ALLOWED) or
 * names a file outside the datasets' (ACCESS_DENIED), found in the engine's own parse of it;
 * undefined when it may run.
 */
export async function functionRefusal(connection: DuckDBConnection, sql: string, allowed: AllowedFiles): Promise<QuarryError | undefined> {
  const surface = await statementSurface(connection, sql);
  for (const name of surface.functions) {
    const reason = REFUSED_FUNCTIONS.get(name);
    if (reason !== undefined) return new QuarryError('STATEMENT_NOT_ALLOWED', `${name}() is not allowed in user SQL: ${reason}`);
  }
  for (const read of surface.fileReads) {
    if (fileAllowed(read, allowed)) continue;
    const what = read.path === undefined ? 'a path computed at run time' : `"${read.path}"`;
    return new QuarryError('ACCESS_DENIED', `${read.via} may read only the manifest's dataset files, not ${what}: query the datasets by name`);
  }
  return undefined;
}
