/**
 * DuckDB's own parse of a statement (`json_serialize_sql`), as the scheduler reads it to decide
 * whether a query may be split across executors. Only the node kinds the pushdown understands
 * are typed; anything else is treated as unknown and makes the query take the normal path.
 */

/** One expression node: `class` says its kind (COLUMN_REF, FUNCTION, ...), `type` refines it. */
export interface ExpressionNode {
  readonly class: string;
  readonly type: string;
  readonly alias?: string;
  readonly [field: string]: unknown;
}

export interface OrderTerm {
  readonly type: string;
  readonly null_order: string;
  readonly expression: ExpressionNode;
}

export interface ResultModifier {
  readonly type: string;
  readonly orders?: readonly OrderTerm[];
  readonly limit?: ExpressionNode | null;
  readonly offset?: ExpressionNode | null;
  readonly [field: string]: unknown;
}

export interface TableReference {
  readonly type: string;
  readonly alias: string;
  readonly [field: string]: unknown;
}

export interface SelectNode {
  readonly type: string;
  readonly modifiers: readonly ResultModifier[];
  readonly cte_map: { readonly map: readonly unknown[] };
  readonly select_list: readonly ExpressionNode[];
  readonly from_table: TableReference;
  readonly where_clause: ExpressionNode | null;
  readonly group_expressions: readonly ExpressionNode[];
  readonly group_sets: ReadonlyArray<readonly number[]>;
  readonly aggregate_handling: string;
  readonly having: ExpressionNode | null;
  readonly sample: unknown;
  readonly qualify: ExpressionNode | null;
  readonly [field: string]: unknown;
}

export interface ParsedStatement {
  readonly node: SelectNode;
  readonly named_param_map: readonly unknown[];
}

/** The statement when the text is exactly one SELECT that DuckDB could serialise; else undefined. */
export function parsedSelect(json: string): ParsedStatement | undefined {
  let parsed: { error?: boolean; statements?: unknown[] };
  try {
    parsed = JSON.parse(json) as typeof parsed;
  } catch {
    return undefined;
  }
  if (parsed.error !== false || parsed.statements?.length !== 1) return undefined;
  const statement = parsed.statements[0] as ParsedStatement;
  return statement.node?.type === 'SELECT_NODE' ? statement : undefined;
}

/** Wraps one SELECT node back into the document `json_deserialize_sql` takes. */
export function statementDocument(node: SelectNode): string {
  return JSON.stringify({ error: false, statements: [{ node, named_param_map: [] }] });
}

export function isExpression(value: unknown): value is ExpressionNode {
  return typeof value === 'object' && value !== null && typeof (value as { class?: unknown }).class === 'string';
}

/** Every expression node under `root` (itself included), in any field, depth first. */
export function* expressionsIn(root: unknown): Generator<ExpressionNode> {
  if (Array.isArray(root)) {
    for (const item of root) yield* expressionsIn(item);
    return;
  }
  if (typeof root !== 'object' || root === null) return;
  if (isExpression(root)) yield root;
  for (const value of Object.values(root)) if (typeof value === 'object' && value !== null) yield* expressionsIn(value);
}

/** A key equal for two expressions that differ only in alias, source position or identifier case. */
export function expressionKey(node: ExpressionNode): string {
  return JSON.stringify(node, (key, value: unknown) => {
    if (key === 'alias' || key === 'query_location') return undefined;
    if (key === 'column_names' && Array.isArray(value)) return value.map((name) => String(name).toLowerCase());
    return value;
  });
}

/** The node without its alias (and position): the pushdown names its outputs itself. */
export function withoutAlias<T extends ExpressionNode>(node: T): T {
  return { ...node, alias: '' };
}

export function columnReference(name: string, alias = ''): ExpressionNode {
  return { class: 'COLUMN_REF', type: 'COLUMN_REF', alias, column_names: [name] };
}

export function conjunction(children: readonly ExpressionNode[]): ExpressionNode {
  return children.length === 1 ? children[0]! : { class: 'CONJUNCTION', type: 'CONJUNCTION_AND', alias: '', children };
}

/** The value of an integer constant (LIMIT 10), or undefined for anything else. */
export function integerConstant(node: ExpressionNode | null | undefined): number | undefined {
  if (!node || node.class !== 'CONSTANT') return undefined;
  const value = node['value'] as { type?: { id?: string }; is_null?: boolean; value?: unknown } | undefined;
  if (!value || value.is_null || !['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT'].includes(value.type?.id ?? '')) return undefined;
  const number = Number(value.value);
  return Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}
