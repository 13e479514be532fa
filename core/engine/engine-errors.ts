import type { DuckDBConnection } from '@duckdb/node-api';
import { isRegisteredErrorCode } from '../errors/codes.js';
import { QuarryError, isQuarryError, toQuarryError } from '../errors/quarry-error.js';

/**
 * A JS function registered in the engine (a plugin's UDF) reports its failure with
 * `info.setError('[CODE] message')`; DuckDB prefixes its error class ("Invalid Input Error: ").
 * When CODE is a registered code, the query fails with it and the plugin's message.
 */
const FUNCTION_ERROR = /^[A-Za-z ]+? Error: \[([A-Z][A-Z0-9_]*)\] ([\s\S]*)$/;

/** The error code string to put before a JS function's message: `functionErrorMessage('GEO_INVALID_GEOMETRY', 'ST_GeomFromText: ...')`. */
export function functionErrorMessage(code: string, message: string): string {
  return `[${code}] ${message}`;
}

export interface EngineErrorContext {
  datasetNames?: () => string[];
  unavailable?: (table: string) => QuarryError | undefined;
  /** The runtime's own hint for an engine extension it does not load (EngineSandbox.hintForExtension). */
  extensionHint?: (extension: string) => string | undefined;
}

/** DuckDB's advice for a function or type of an extension that is not loaded: statements user SQL may not run. */
const INSTALL_HINT = /Please try installing and loading the (\w+) extension:\s*INSTALL \w+;\s*LOAD \w+;\s*/;

/** The engine's "INSTALL x; LOAD x;" advice replaced by the runtime's own (the plugin's switch, or that it loads none). */
function withoutInstallHint(message: string, context: EngineErrorContext): string {
  const advice = INSTALL_HINT.exec(message);
  if (!advice) return message;
  const extension = advice[1]!;
  const hint = context.extensionHint?.(extension) ?? `the runtime does not install or load engine extensions from SQL (${extension} is not available here)`;
  return message.replace(INSTALL_HINT, `${hint}.`).trimEnd();
}

/** DuckDB's advice to raise a limit with SET (`Use "SET max_expression_depth TO x" ...`): user SQL may not. */
const SET_HINT = /\s*Use "SET [^"]+" to [^.]*\./;

function withoutSetHint(message: string): string {
  return message.replace(SET_HINT, ' (the runtime keeps the engine\'s limits: write the statement with less nesting)');
}

/**
 * Maps DuckDB's error text ("Parser Error: ...", "Catalog Error: ...") to stable codes.
 * The engine's message is kept: it names the line and the offending token.
 */
export function engineError(error: unknown, context: EngineErrorContext = {}): QuarryError {
  if (isQuarryError(error)) return toQuarryError(error);
  // The node binding prefixes parse failures with its own words; the engine's text follows.
  const message = withoutSetHint(withoutInstallHint((error instanceof Error ? error.message : String(error)).replace(/^Failed to extract statements: /, ''), context));
  const kind = /^([A-Za-z ]+?) Error:/.exec(message)?.[1] ?? '';
  const fromFunction = FUNCTION_ERROR.exec(message);
  if (fromFunction && isRegisteredErrorCode(fromFunction[1]!)) return new QuarryError(fromFunction[1]!, fromFunction[2]!.trim(), { cause: error });
  // A dataset with no view yet (its source has not given its columns) is not ready, not unknown.
  const missing = /^Catalog Error: Table with name (.+?) does not exist/.exec(message);
  const unavailable = missing ? context.unavailable?.(missing[1]!) : undefined;
  if (unavailable) return unavailable;
  const missingTable = /^Catalog Error: Table with name (.+?) does not exist!/.exec(message);
  if (missingTable) {
    const names = context.datasetNames?.() ?? [];
    const list = names.length > 0 ? `datasets: ${names.join(', ')}` : 'no datasets are loaded';
    return new QuarryError('TABLE_NOT_FOUND', `table "${missingTable[1]}" does not exist (${list})`, { cause: error });
  }
  switch (kind) {
    case 'Parser':
    case 'Binder':
    case 'Catalog':
    case 'Syntax':
      return new QuarryError('SQL_INVALID', message, { cause: error });
    case 'Permission':
      return new QuarryError('ACCESS_DENIED', `${message.split('\n')[0]}: queries may read only the datasets of the manifest`, { cause: error });
    case 'Out of Memory':
      return new QuarryError('QUERY_OUT_OF_MEMORY', `${message} (raise runtime.query.memory_limit or set runtime.query.temp_directory to spill)`, { cause: error });
    case 'INTERRUPT':
      return new QuarryError('QUERY_CANCELLED', 'the query was cancelled', { cause: error });
    default:
      return new QuarryError('QUERY_FAILED', message, { cause: error });
  }
}

/** SQL_EMPTY or SQL_MULTIPLE_STATEMENTS for DuckDB's refusal to prepare such a text; undefined for any other error. */
export async function statementCountError(connection: DuckDBConnection, sql: string, error: unknown): Promise<QuarryError | undefined> {
  const message = (error as Error).message ?? '';
  if (/No statement to prepare/i.test(message)) return new QuarryError('SQL_EMPTY', 'the SQL text holds no statement');
  if (!/Cannot prepare multiple statements/i.test(message)) return undefined;
  const count = await connection.extractStatements(sql).then((statements) => statements.count, () => undefined);
  return new QuarryError('SQL_MULTIPLE_STATEMENTS', `the SQL text holds ${count ?? 'more than one'} statement${count === 1 ? '' : 's'}; send one statement per request`);
}
