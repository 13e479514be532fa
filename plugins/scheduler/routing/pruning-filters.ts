import type { ScanFilter, ScanValue } from '../../../core/engine/sources/connector.js';
import type { ExpressionNode } from './syntax-tree.js';

const COMPARISONS: Record<string, '=' | '<>' | '<' | '<=' | '>' | '>='> = {
  COMPARE_EQUAL: '=',
  COMPARE_NOTEQUAL: '<>',
  COMPARE_LESSTHAN: '<',
  COMPARE_GREATERTHAN: '>',
  COMPARE_LESSTHANOREQUALTO: '<=',
  COMPARE_GREATERTHANOREQUALTO: '>=',
};
const FLIPPED: Record<string, '=' | '<>' | '<' | '<=' | '>' | '>='> = { '=': '=', '<>': '<>', '<': '>', '>': '<', '<=': '>=', '>=': '<=' };

const INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT']);

/**
 * The WHERE clause's top-level conjuncts that compare a dataset column (`columnOf` resolves a
 * reference) with constants of its own kind, as the scan filters that prune partitions.
 */
export function pruningFilters(where: ExpressionNode | null, columnOf: (reference: ExpressionNode) => { name: string; type: string } | undefined): ScanFilter[] {
  const filters: ScanFilter[] = [];
  const conjuncts = (node: ExpressionNode): ExpressionNode[] => (node.class === 'CONJUNCTION' && node.type === 'CONJUNCTION_AND' ? (node['children'] as ExpressionNode[]).flatMap(conjuncts) : [node]);
  for (const conjunct of where ? conjuncts(where) : []) {
    if (conjunct.class === 'COMPARISON' && conjunct.type in COMPARISONS) {
      const [left, right] = [conjunct['left'] as ExpressionNode, conjunct['right'] as ExpressionNode];
      const operator = COMPARISONS[conjunct.type]!;
      const pair = left.class === 'COLUMN_REF' ? { column: left, constant: right, operator } : { column: right, constant: left, operator: FLIPPED[operator]! };
      const column = pair.column.class === 'COLUMN_REF' ? columnOf(pair.column) : undefined;
      const value = column && constantOf(pair.constant, column.type);
      if (column && value !== undefined) filters.push({ column: column.name, operator: pair.operator, value });
    } else if (conjunct.class === 'OPERATOR' && conjunct.type === 'COMPARE_IN') {
      const [first, ...rest] = conjunct['children'] as ExpressionNode[];
      const column = first?.class === 'COLUMN_REF' ? columnOf(first) : undefined;
      const values = column ? rest.map((item) => constantOf(item, column.type)) : [];
      if (column && values.length > 0 && values.every((value) => value !== undefined)) filters.push({ column: column.name, operator: 'IN', values: values as ScanValue[] });
    } else if (conjunct.class === 'OPERATOR' && (conjunct.type === 'OPERATOR_IS_NULL' || conjunct.type === 'OPERATOR_IS_NOT_NULL')) {
      const child = (conjunct['children'] as ExpressionNode[])[0];
      const column = child?.class === 'COLUMN_REF' ? columnOf(child) : undefined;
      if (column) filters.push({ column: column.name, operator: conjunct.type === 'OPERATOR_IS_NULL' ? 'IS NULL' : 'IS NOT NULL' });
    }
  }
  return filters;
}

/**
 * A constant usable for pruning a column of `columnType`: only of the same kind (an integer for
 * an integer column, a string for VARCHAR, a boolean for BOOLEAN), so comparing it needs no
 * cast whose rules could differ from DuckDB's.
 */
function constantOf(node: ExpressionNode, columnType: string): ScanValue | undefined {
  if (node.class !== 'CONSTANT') return undefined;
  const constant = node['value'] as { type: { id: string }; is_null: boolean; value: unknown };
  if (constant.is_null) return undefined;
  const id = constant.type.id;
  if (INTEGER_TYPES.has(id) && INTEGER_TYPES.has(columnType)) {
    const number = Number(constant.value);
    return Number.isSafeInteger(number) ? number : undefined;
  }
  if (id === 'VARCHAR' && columnType === 'VARCHAR' && typeof constant.value === 'string') return constant.value;
  if (id === 'BOOLEAN' && columnType === 'BOOLEAN' && typeof constant.value === 'boolean') return constant.value;
  return undefined;
}
