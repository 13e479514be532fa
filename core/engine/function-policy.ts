import type { DuckDBConnection } from '@duckdb/node-api';
import { QuarryError } from '../errors/quarry-error.js';
import { EXPLAIN_PREFIX } from './classify.js';

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

/** Names of every function a serialized statement calls (`"function_name"` of FUNCTION and TABLE_FUNCTION nodes). */
function functionNames(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) functionNames(item, found);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'function_name' && typeof value === 'string') found.add(value.toLowerCase());
    else functionNames(value, found);
  }
}

/**
 * Names of functions the text calls, by the engine's own parse (`json_serialize_sql`); for a
 * statement the engine cannot serialize (PIVOT, a non-SELECT), every `name(` and `"name"(`
 * in the text, which is conservative: a name inside a string literal counts too.
 */
async function calledFunctions(connection: DuckDBConnection, sql: string): Promise<Set<string>> {
  const text = sql.replace(EXPLAIN_PREFIX, '');
  const found = new Set<string>();
  const serialized = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [text]).then((reader) => String(reader.getRows()[0]?.[0] ?? ''), () => '');
  const parsed = serialized ? (JSON.parse(serialized) as { error?: boolean }) : { error: true };
  if (!parsed.error) {
    functionNames(parsed, found);
    return found;
  }
  for (const match of text.matchAll(/(?:"((?:[^"]|"")+)"|([A-Za-z_][\w$]*))\s*\(/g)) found.add((match[1] ?? match[2]!).replaceAll('""', '"').toLowerCase());
  return found;
}

/** STATEMENT_NOT_ALLOWED naming the first refused function the statement calls; undefined when it calls none. */
export async function functionRefusal(connection: DuckDBConnection, sql: string): Promise<QuarryError | undefined> {
  const called = await calledFunctions(connection, sql);
  for (const name of called) {
    const reason = REFUSED_FUNCTIONS.get(name);
    if (reason !== undefined) return new QuarryError('STATEMENT_NOT_ALLOWED', `${name}() is not allowed in user SQL: ${reason}`);
  }
  return undefined;
}
