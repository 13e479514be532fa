import type { AggregateCall, QueryShape, SplitPlan } from './query-shape.js';
import { columnReference, conjunction, expressionsIn, isExpression, withoutAlias, type ExpressionNode, type OrderTerm, type ResultModifier, type SelectNode, type TableReference } from './syntax-tree.js';

/**
 * The statements of a pushed-down query, as syntax trees DuckDB renders back to SQL
 * (`json_deserialize_sql`): what each executor runs, and what the scheduler runs over the
 * union of their answers. Pure functions: no engine, no I/O.
 */

/** Stands for a leg's partition predicate in the rendered text, replaced per leg (see `legSql`). */
export const PARTITION_PREDICATE_MARKER = 'quarry_partition_predicate';
/** The temporary table holding the executors' answers when the scheduler merges them. */
export const PARTIALS_TABLE = 'quarry_partials';
/** The scalar function the merge uses to finish avg() exactly as DuckDB does (see average.ts). */
export const AVERAGE_FUNCTION = 'quarry_cluster_avg';

/** How DuckDB's avg() finishes for the argument's type: how the merge must finish it too. */
export type AverageFinish =
  /** DOUBLE / FLOAT: sum / count in double arithmetic. */
  | { readonly kind: 'double' }
  /** SMALLINT, DECIMAL(<=4, s): double(sum) / (double(count) * 10^s). */
  | { readonly kind: 'int16'; readonly scale: number }
  /** INTEGER, BIGINT, HUGEINT, DECIMAL(>4, s): long double sum / (count * 10^s). */
  | { readonly kind: 'extended'; readonly scale: number };

/** The leg statement with the partition predicate as a marker: the query run whole, or its union form. */
export function wholeLegStatement(shape: QueryShape): SelectNode {
  return withPartitionMarker(shape.statement.node);
}

/** Each executor's share of a top-k: its rows in the query's order, at most k (+ offset). */
export function topKLegStatement(shape: QueryShape, plan: Extract<SplitPlan, { kind: 'top-k' }>): SelectNode {
  const node = shape.statement.node;
  const modifiers: ResultModifier[] = [];
  if (plan.order.length > 0) modifiers.push({ type: 'ORDER_MODIFIER', orders: plan.order });
  modifiers.push({ type: 'LIMIT_MODIFIER', limit: integerValue(plan.limit), offset: null });
  return withPartitionMarker({
    ...node,
    select_list: plan.columns.map((name) => columnReference(name)),
    modifiers,
    group_expressions: [],
    group_sets: [],
    having: null,
    qualify: null,
  });
}

/** The columns each aggregate contributes to a leg's answer, in order. */
export function partialsOf(call: AggregateCall): ExpressionNode[] {
  if (call.kind === 'avg') return [{ ...call.node, function_name: 'sum' }, { ...call.node, function_name: 'count' }];
  // Counted on the scheduler from the distinct key the legs group by (`quarry_d`).
  if (call.kind === 'count-distinct') return [];
  return [call.node];
}

/** The column of a leg's answer holding the distinct argument of count(DISTINCT ...). */
export const DISTINCT_COLUMN = 'quarry_d';

/** Each executor's share of an aggregate: its groups (`quarry_g<i>`) with partial aggregates (`quarry_a<k>`). */
export function aggregateLegStatement(shape: QueryShape, plan: Extract<SplitPlan, { kind: 'aggregate' }>): SelectNode {
  const node = shape.statement.node;
  const partials = plan.aggregates.flatMap(partialsOf);
  // count(DISTINCT x): the legs group by x too (each sends each distinct value once per group).
  const groups = plan.distinct ? [...node.group_expressions, plan.distinct] : node.group_expressions;
  return withPartitionMarker({
    ...node,
    select_list: [
      ...plan.groups.map((group, index) => ({ ...withoutAlias(group), alias: `quarry_g${index}` })),
      ...(plan.distinct ? [{ ...plan.distinct, alias: DISTINCT_COLUMN }] : []),
      ...partials.map((partial, index) => ({ ...partial, alias: `quarry_a${index}` })),
    ],
    group_expressions: groups,
    group_sets: groups.length > 0 ? [groups.map((_, index) => index)] : [],
    modifiers: [],
    having: null,
    qualify: null,
  });
}

/** A query over the arguments of the avg() calls, so DESCRIBE tells their types (how each avg finishes). */
export function averageArgumentsStatement(shape: QueryShape, plan: Extract<SplitPlan, { kind: 'aggregate' }>): SelectNode | undefined {
  const argumentsOfAverages = plan.aggregates.filter((call) => call.kind === 'avg').map((call) => withoutAlias(call.argument!));
  if (argumentsOfAverages.length === 0) return undefined;
  return bareSelect(shape.statement.node, argumentsOfAverages, shape.statement.node.from_table);
}

/** How DuckDB finishes avg() over a value of this type, or undefined when the merge cannot match it exactly. */
export function averageFinish(type: string): AverageFinish | undefined {
  if (type === 'DOUBLE' || type === 'FLOAT') return { kind: 'double' };
  if (type === 'SMALLINT') return { kind: 'int16', scale: 0 };
  if (type === 'INTEGER' || type === 'BIGINT' || type === 'HUGEINT') return { kind: 'extended', scale: 0 };
  const decimal = /^DECIMAL\((\d+),\s*(\d+)\)$/.exec(type);
  if (!decimal) return undefined;
  const [width, scale] = [Number(decimal[1]), Number(decimal[2])];
  if (scale > 18) return undefined; // 10^scale must be exact in a double, as DuckDB's divisor is
  return width <= 4 ? { kind: 'int16', scale } : { kind: 'extended', scale };
}

/**
 * The scheduler's query over the legs' answers, in two rendered pieces: each output expression
 * (to be cast to the single-node type and named as a single node names it) and the rest of the
 * statement (`SELECT 1 FROM quarry_partials GROUP BY ... HAVING ... ORDER BY ... LIMIT ...`).
 */
export function aggregateMergeStatements(shape: QueryShape, plan: Extract<SplitPlan, { kind: 'aggregate' }>, averages: readonly AverageFinish[]): { outputs: SelectNode[]; rest: SelectNode } {
  const node = shape.statement.node;
  const combined: ExpressionNode[] = [];
  let partial = 0;
  let average = 0;
  for (const call of plan.aggregates) {
    const column = (offset: number) => columnReference(`quarry_a${partial + offset}`);
    if (call.kind === 'avg') {
      combined.push(averageOf(sum(column(0)), sum(column(1)), averages[average++]!));
      partial += 2;
      continue;
    }
    if (call.kind === 'count-distinct') {
      // The union holds each distinct value once per executor: counted distinct again.
      combined.push({ ...aggregate('count', columnReference(DISTINCT_COLUMN)), distinct: true });
      continue;
    }
    // Counts add up (and stay BIGINT); sums add up; a minimum of minimums, a maximum of maximums.
    // Grouped by the distinct key too, the legs of a query without groups answer no row at all
    // over no input: a count is then 0, not the NULL of an empty sum.
    const total = cast(sum(column(0)), 'BIGINT');
    combined.push(call.kind === 'count' ? (plan.distinct ? orZero(total) : total) : call.kind === 'sum' ? sum(column(0)) : aggregate(call.kind, column(0)));
    partial += 1;
  }
  const resolve = <T>(tree: T): T => replacePlaceholders(tree, combined);
  const partials = partialsTable(node.from_table);
  // Rendered without a FROM: each is only the text of one output expression.
  const outputs = plan.select.map((item) => bareSelect(node, [resolve(withoutAlias(item))], { type: 'EMPTY', alias: '', sample: null }));
  const modifiers: ResultModifier[] = [];
  if (plan.order.length > 0) modifiers.push({ type: 'ORDER_MODIFIER', orders: resolve(plan.order) as OrderTerm[] });
  const limit = node.modifiers.find((modifier) => modifier.type === 'LIMIT_MODIFIER');
  if (limit) modifiers.push(limit);
  const rest: SelectNode = {
    ...node,
    select_list: [integerValue(1)],
    from_table: partials,
    where_clause: null,
    group_expressions: plan.groups.map((_, index) => columnReference(`quarry_g${index}`)),
    group_sets: plan.groups.length > 0 ? [plan.groups.map((_, index) => index)] : [],
    having: plan.having ? resolve(plan.having) : null,
    qualify: null,
    modifiers,
  };
  return { outputs, rest };
}

/** The top-k merge: the query itself, over the legs' rows instead of the dataset. */
export function topKMergeStatement(shape: QueryShape): SelectNode {
  const node = shape.statement.node;
  return { ...node, from_table: partialsTable(node.from_table), where_clause: null };
}

/** The leg's SQL: the rendered statement with the marker replaced by this leg's partition predicate. */
export function legSql(rendered: string, predicate: string): string {
  return rendered.replaceAll(new RegExp(`\\b${PARTITION_PREDICATE_MARKER}\\b`, 'g'), `(${predicate})`);
}

function withPartitionMarker(node: SelectNode): SelectNode {
  const marker = columnReference(PARTITION_PREDICATE_MARKER);
  return { ...node, where_clause: conjunction(node.where_clause ? [marker, node.where_clause] : [marker]) };
}

/** `SELECT <expressions> FROM <from>` and nothing else. */
function bareSelect(node: SelectNode, expressions: readonly ExpressionNode[], from: TableReference): SelectNode {
  return { ...node, select_list: expressions, from_table: from, where_clause: null, group_expressions: [], group_sets: [], having: null, qualify: null, modifiers: [], cte_map: { map: [] } };
}

/** The partials table under the query's own qualifier, so `e.amount` / `events.amount` still resolve. */
function partialsTable(from: TableReference): TableReference {
  return { type: 'BASE_TABLE', alias: from.alias || String(from['table_name']), sample: null, schema_name: '', table_name: PARTIALS_TABLE, column_name_alias: [], catalog_name: '', at_clause: null };
}

function replacePlaceholders<T>(tree: T, combined: readonly ExpressionNode[]): T {
  if (Array.isArray(tree)) return tree.map((item: unknown) => replacePlaceholders(item, combined)) as T;
  if (typeof tree !== 'object' || tree === null) return tree;
  if (isExpression(tree) && tree.class === 'COLUMN_REF') {
    const match = /^quarry_final_(\d+)$/.exec((tree['column_names'] as string[])[0] ?? '');
    if (match && (tree['column_names'] as string[]).length === 1) return combined[Number(match[1])]! as T;
  }
  return Object.fromEntries(Object.entries(tree).map(([key, value]) => [key, replacePlaceholders(value, combined)])) as T;
}

function averageOf(total: ExpressionNode, count: ExpressionNode, finish: AverageFinish): ExpressionNode {
  if (finish.kind === 'double') return call('/', [total, count], true);
  return call(AVERAGE_FUNCTION, [cast(total, 'VARCHAR'), cast(count, 'BIGINT'), integerValue(finish.scale), booleanValue(finish.kind === 'extended')]);
}

/** `coalesce(value, 0)` (an operator in DuckDB's syntax tree, not a function). */
function orZero(value: ExpressionNode): ExpressionNode {
  return { class: 'OPERATOR', type: 'OPERATOR_COALESCE', alias: '', children: [value, integerValue(0)] };
}

function sum(child: ExpressionNode): ExpressionNode {
  return aggregate('sum', child);
}

function aggregate(name: string, child: ExpressionNode): ExpressionNode {
  return call(name, [child]);
}

function call(name: string, children: readonly ExpressionNode[], operator = false): ExpressionNode {
  return { class: 'FUNCTION', type: 'FUNCTION', alias: '', function_name: name, schema: '', children, filter: null, order_bys: { type: 'ORDER_MODIFIER', orders: [] }, distinct: false, is_operator: operator, export_state: false, catalog: '' };
}

function cast(child: ExpressionNode, type: string): ExpressionNode {
  return { class: 'CAST', type: 'OPERATOR_CAST', alias: '', child, cast_type: { id: type, type_info: null }, try_cast: false };
}

function integerValue(value: number): ExpressionNode {
  return { class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', value: { type: { id: 'BIGINT', type_info: null }, is_null: false, value } };
}

function booleanValue(value: boolean): ExpressionNode {
  return { class: 'CONSTANT', type: 'VALUE_CONSTANT', alias: '', value: { type: { id: 'BOOLEAN', type_info: null }, is_null: false, value } };
}

/** Whether any node of the tree names a `quarry_` identifier the pushdown itself uses. */
export function mentionsReservedNames(tree: unknown): boolean {
  for (const expression of expressionsIn(tree)) {
    if (expression.class === 'COLUMN_REF' && (expression['column_names'] as string[]).some((name) => name.toLowerCase().startsWith('quarry_'))) return true;
  }
  return false;
}
