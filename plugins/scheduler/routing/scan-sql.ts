import type { ScanFilter, ScanRequest, ScanValue } from '../../../core/engine/sources/connector.js';
import { quoteIdentifier } from '../partition-keys.js';

/** A DuckDB literal for a pushed-down filter value (values come from the engine's plan, typed). */
export function scanLiteral(value: ScanValue): string {
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  if (typeof value === 'bigint' || typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return `TIMESTAMP '${value.toISOString().replace('T', ' ').replace('Z', '')}'`;
}

function filterSql(filter: ScanFilter): string {
  const column = quoteIdentifier(filter.column);
  if (filter.operator === 'IN') return `${column} IN (${filter.values.map(scanLiteral).join(', ')})`;
  if (!('value' in filter)) return `${column} ${filter.operator}`;
  return `${column} ${filter.operator} ${scanLiteral(filter.value)}`;
}

/**
 * The query one executor runs for its share of a scan: the asked columns, the partition
 * predicate of the partitions it serves, the query's own filters and the limit.
 */
export function executorScanSql(table: string, allColumns: readonly string[], request: Pick<ScanRequest, 'columns' | 'filters' | 'limit'>, partitionPredicate: string): string {
  const columns = (request.columns ?? allColumns).map(quoteIdentifier).join(', ');
  const predicates = [partitionPredicate, ...(request.filters ?? []).map(filterSql)];
  let sql = `SELECT ${columns || '1'} FROM ${table} WHERE ${predicates.map((predicate) => `(${predicate})`).join(' AND ')}`;
  if (request.limit !== undefined) sql += ` LIMIT ${Math.max(0, Math.floor(request.limit))}`;
  return sql;
}
