import type { ScanFilter, ScanRequest, ScanValue } from './connector.js';

/**
 * A SELECT for a SQL source from a scan request: the asked columns, the filters as a
 * parameterised WHERE (values never spliced into the text), and the limit.
 */
export function pushdownSelect(options: {
  /** The source's table, already quoted for its dialect. */
  table: string;
  /** All the dataset's columns, in order. */
  columns: readonly string[];
  request: Pick<ScanRequest, 'columns' | 'filters' | 'limit'>;
  quoteIdentifier: (name: string) => string;
  /** The placeholder of the n-th parameter (1-based): `$1` for PostgreSQL, `?` for SQLite. */
  placeholder: (position: number) => string;
  /** Converts a filter value to what the driver binds. */
  bindValue?: (value: ScanValue) => unknown;
}): { sql: string; parameters: unknown[] } {
  const parameters: unknown[] = [];
  const bind = options.bindValue ?? ((value: ScanValue) => value);
  const parameter = (value: ScanValue) => {
    parameters.push(bind(value));
    return options.placeholder(parameters.length);
  };
  const wanted = options.request.columns ?? options.columns;
  const predicates = (options.request.filters ?? []).map((filter) => predicate(filter, options.quoteIdentifier, parameter));
  let sql = `SELECT ${wanted.map(options.quoteIdentifier).join(', ')} FROM ${options.table}`;
  if (predicates.length > 0) sql += ` WHERE ${predicates.join(' AND ')}`;
  if (options.request.limit !== undefined) sql += ` LIMIT ${Math.max(0, Math.floor(options.request.limit))}`;
  return { sql, parameters };
}

function predicate(filter: ScanFilter, quote: (name: string) => string, parameter: (value: ScanValue) => string): string {
  const column = quote(filter.column);
  if (filter.operator === 'IN') return `${column} IN (${filter.values.map(parameter).join(', ')})`;
  if (!('value' in filter)) return `${column} ${filter.operator}`;
  return `${column} ${filter.operator} ${parameter(filter.value)}`;
}
