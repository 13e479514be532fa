import { QuarryError } from '../errors/quarry-error.js';

/**
 * Maps DuckDB's error text ("Parser Error: ...", "Catalog Error: ...") to stable codes.
 * The engine's message is kept: it names the line and the offending token.
 */
export function engineError(error: unknown, context: { datasetNames?: () => string[] } = {}): QuarryError {
  if (error instanceof QuarryError) return error;
  // The node binding prefixes parse failures with its own words; the engine's text follows.
  const message = (error instanceof Error ? error.message : String(error)).replace(/^Failed to extract statements: /, '');
  const kind = /^([A-Za-z ]+?) Error:/.exec(message)?.[1] ?? '';
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
