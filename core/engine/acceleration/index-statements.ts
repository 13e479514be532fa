import type { DatasetConfig } from '../../manifest/types.js';
import { quoteIdentifier } from '../sql-text.js';

/**
 * `acceleration.indexes`, as Spice writes them: `{ <column>: enabled | unique }` or
 * `{ "(a, b)": enabled | unique }` for an index over several columns. Each becomes a real
 * engine index (an ART index in DuckDB) on the accelerated table, made again after every
 * load that replaces the table. Pure: the registry runs the statements.
 */

/** The columns an index key names: `customer_id` → [customer_id], `(a, b)` → [a, b]. */
export function indexColumns(key: string): string[] {
  const trimmed = key.trim();
  const inner = trimmed.startsWith('(') && trimmed.endsWith(')') ? trimmed.slice(1, -1) : trimmed;
  return inner.split(',').map((column) => column.trim());
}

/** Why an index key is not a column or a parenthesised list of columns, or undefined when it is. */
export function indexKeyProblem(key: string): string | undefined {
  const columns = indexColumns(key);
  if (columns.some((column) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(column))) {
    return `index "${key}" must name a column (customer_id) or a parenthesised list of columns ("(customer_id, order_date)")`;
  }
  return undefined;
}

/** `CREATE [UNIQUE] INDEX` statements for `table` (quoted SQL), one per declared index. */
export function indexStatements(config: DatasetConfig, table: { sql: string }): string[] {
  const indexes = config.acceleration?.indexes ?? {};
  const base = config.name.replaceAll('.', '_');
  return Object.entries(indexes).map(([key, kind], position) => {
    const name = quoteIdentifier(`${base}_index_${position + 1}`);
    const columns = indexColumns(key).map(quoteIdentifier).join(', ');
    return `CREATE ${kind === 'unique' ? 'UNIQUE ' : ''}INDEX ${name} ON ${table.sql} (${columns})`;
  });
}
