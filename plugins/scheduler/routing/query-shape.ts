import type { ScanFilter } from '../../../core/engine/sources/connector.js';
import { pruningFilters } from './pruning-filters.js';
import {
  expressionKey,
  expressionsIn,
  integerConstant,
  withoutAlias,
  type ExpressionNode,
  type OrderTerm,
  type ParsedStatement,
  type SelectNode,
} from './syntax-tree.js';

/**
 * Which queries the scheduler may answer by pushing work into its executors, decided on
 * DuckDB's own parse of the statement. Everything not recognised here takes the normal path
 * (the executors' rows are fetched and the scheduler's engine runs the query), so each rule
 * errs on the side of "not pushed".
 */

/** A partitioned dataset as the recogniser sees it: its name and columns with DuckDB types. */
export interface ShapeDataset {
  readonly name: string;
  /** By lower-case name: the column's spelling and its DuckDB type (`BIGINT`, `VARCHAR`, ...). */
  readonly columns: ReadonlyMap<string, { readonly name: string; readonly type: string }>;
}

export interface ShapeContext {
  /** Partitioned datasets by lower-case SQL name. */
  readonly datasets: ReadonlyMap<string, ShapeDataset>;
  /** DuckDB's aggregate function names, lower case (from duckdb_functions()). */
  readonly aggregateFunctions: ReadonlySet<string>;
}

/**
 * An aggregate the executors can compute in part: each leg's value is combined on the
 * scheduler. `count-distinct` is computed on the scheduler over the distinct values each leg
 * returns (the argument becomes one more group key of the legs).
 */
export interface AggregateCall {
  readonly kind: 'count' | 'sum' | 'min' | 'max' | 'avg' | 'count-distinct';
  /** The call as written, without its alias. */
  readonly node: ExpressionNode;
  /** Its argument; undefined for count(*). */
  readonly argument: ExpressionNode | undefined;
}

/** How a query runs when it needs several executors. */
export type SplitPlan =
  /** Row-wise: each executor runs the query over its partitions; the answers are concatenated. */
  | { readonly kind: 'union' }
  /**
   * ORDER BY ... LIMIT k (no aggregate): each executor returns its first k (+ offset) rows of
   * `columns` in that order; the scheduler runs the query over their union.
   */
  | { readonly kind: 'top-k'; readonly columns: readonly string[]; readonly order: readonly OrderTerm[]; readonly limit: number }
  /**
   * GROUP BY with count/sum/min/max/avg: each executor returns its groups with partial
   * aggregates; the scheduler combines them. `select`, `having` and `order` are the query's
   * own, with group expressions replaced by `quarry_g<i>` and aggregates by `quarry_final_<j>`.
   * With `distinct` (the one argument of every count(DISTINCT ...)), the legs also group by it
   * (`quarry_d`), so each executor sends each distinct value once per group and the scheduler
   * counts the distinct values of the union.
   */
  | {
      readonly kind: 'aggregate';
      readonly groups: readonly ExpressionNode[];
      readonly aggregates: readonly AggregateCall[];
      readonly distinct: ExpressionNode | undefined;
      readonly select: readonly ExpressionNode[];
      readonly having: ExpressionNode | null;
      readonly order: readonly OrderTerm[];
    };

export interface QueryShape {
  /** The partitioned dataset read, as configured. */
  readonly dataset: string;
  readonly statement: ParsedStatement;
  /** Simple predicates on columns that every wanted row meets: they prune partitions. */
  readonly filters: readonly ScanFilter[];
  /** How to run it on several executors; undefined when only a single executor may answer it whole. */
  readonly split: SplitPlan | undefined;
}

/** Functions whose value depends on the node or session evaluating them: never pushed. */
const SESSION_FUNCTIONS = new Set([
  'random', 'setseed', 'gen_random_uuid', 'uuid', 'uuidv4', 'uuidv7', 'nextval', 'currval',
  'current_setting', 'getvariable', 'current_query', 'current_database', 'current_catalog',
  'current_schema', 'current_schemas', 'current_user', 'user', 'session_user', 'version',
  'txid_current', 'query', 'query_table',
]);

const COMBINABLE = new Set(['count_star', 'count', 'sum', 'min', 'max', 'avg']);

class NotPushable extends Error {}

function refuse(): never {
  throw new NotPushable();
}

/**
 * The shape of one parsed SELECT over a single partitioned dataset, or undefined when it is not
 * one the scheduler can push down (joins, subqueries, CTEs, parameters, sampling, session
 * functions, ...). Queries it returns may always run whole on one executor holding every wanted
 * partition; `split` says how to run them on several.
 */
export function queryShape(statement: ParsedStatement, context: ShapeContext): QueryShape | undefined {
  try {
    return recognise(statement, context);
  } catch (error) {
    if (error instanceof NotPushable) return undefined;
    throw error;
  }
}

function recognise(statement: ParsedStatement, context: ShapeContext): QueryShape {
  const node = statement.node;
  if (statement.named_param_map.length > 0 || node.cte_map.map.length > 0 || node.sample) refuse();
  const from = node.from_table;
  if (from.type !== 'BASE_TABLE' || from['sample'] || from['at_clause'] || (from['column_name_alias'] as unknown[]).length > 0 || from['catalog_name'] !== '') refuse();
  const schemaName = String(from['schema_name']);
  const tableName = String(from['table_name']);
  const dataset = context.datasets.get((schemaName === '' ? tableName : `${schemaName}.${tableName}`).toLowerCase());
  if (!dataset) refuse();
  // Nothing in the statement may read another table or depend on where it is evaluated.
  for (const expression of expressionsIn([node.select_list, node.where_clause, node.group_expressions, node.having, node.qualify, node.modifiers])) {
    if (expression.class === 'SUBQUERY' || expression.class === 'PARAMETER' || expression.class === 'DEFAULT') refuse();
    if ((expression.class === 'FUNCTION' || expression.class === 'WINDOW') && (expression['schema'] !== '' || expression['catalog'] !== '' || SESSION_FUNCTIONS.has(functionName(expression)))) refuse();
  }
  const scope = new Scope(dataset, from.alias || tableName, context);
  return { dataset: dataset.name, statement, filters: pruningFilters(node.where_clause, (reference) => scope.column(reference)), split: attempt(() => splitPlan(node, scope)) };
}

function attempt<T>(plan: () => T): T | undefined {
  try {
    return plan();
  } catch (error) {
    if (error instanceof NotPushable) return undefined;
    throw error;
  }
}

/** Name resolution against the dataset: which column a reference means, and what is an aggregate. */
class Scope {
  readonly dataset: ShapeDataset;
  readonly qualifier: string;
  readonly context: ShapeContext;

  constructor(dataset: ShapeDataset, qualifier: string, context: ShapeContext) {
    this.dataset = dataset;
    this.qualifier = qualifier.toLowerCase();
    this.context = context;
  }

  /** The dataset column a COLUMN_REF names (`amount`, `e.amount`), or undefined. */
  column(reference: ExpressionNode): { name: string; type: string } | undefined {
    const names = (reference['column_names'] as string[]).map((name) => name.toLowerCase());
    if (names.length === 1) return this.dataset.columns.get(names[0]!);
    if (names.length === 2 && names[0] === this.qualifier) return this.dataset.columns.get(names[1]!);
    return undefined;
  }

  isAggregate(node: ExpressionNode): boolean {
    return node.class === 'FUNCTION' && (this.context.aggregateFunctions.has(functionName(node)) || functionName(node) === 'count_star');
  }

  /** An expression an executor evaluates over its rows: only dataset columns, no aggregate or window. */
  requireRowWise(node: ExpressionNode): void {
    for (const expression of expressionsIn(node)) {
      if (expression.class === 'COLUMN_REF' && this.column(expression) === undefined) refuse();
      if (expression.class === 'WINDOW' || expression.class === 'STAR' || expression.class === 'LAMBDA' || this.isAggregate(expression)) refuse();
    }
  }
}

function functionName(node: ExpressionNode): string {
  return String(node['function_name']).toLowerCase();
}

function splitPlan(node: SelectNode, scope: Scope): SplitPlan {
  if (node.qualify || node.aggregate_handling !== 'STANDARD_HANDLING') refuse();
  if (node.where_clause) scope.requireRowWise(node.where_clause);
  const modifiers = node.modifiers;
  if (modifiers.some((modifier) => modifier.type !== 'ORDER_MODIFIER' && modifier.type !== 'LIMIT_MODIFIER')) refuse(); // DISTINCT, LIMIT %
  const everything = [node.select_list, node.having, node.group_expressions, modifiers];
  const aggregated = node.group_expressions.length > 0 || [...expressionsIn(everything)].some((expression) => scope.isAggregate(expression));
  if ([...expressionsIn(everything)].some((expression) => expression.class === 'WINDOW')) refuse();
  if (aggregated) return aggregatePlan(node, scope);
  if (modifiers.length === 0) return { kind: 'union' };
  return topKPlan(node, scope);
}

function aggregatePlan(node: SelectNode, scope: Scope): SplitPlan {
  const groups = node.group_expressions;
  // Plain GROUP BY only: no ROLLUP / CUBE / GROUPING SETS, no GROUP BY ALL, no positions or aliases.
  const plain = groups.length === 0 ? node.group_sets.length === 0 : node.group_sets.length === 1 && node.group_sets[0]!.length === groups.length && node.group_sets[0]!.every((index, position) => index === position);
  if (!plain) refuse();
  for (const group of groups) {
    if (group.class === 'CONSTANT') refuse();
    scope.requireRowWise(group);
  }
  const groupIndex = new Map(groups.map((group, index) => [expressionKey(group), index]));
  const aggregates: AggregateCall[] = [];
  const aggregateIndex = new Map<string, number>();
  const aliases = aliasesOf(node.select_list);

  // Rewrites an expression of the query's output in terms of the partial results.
  const combine = (expression: ExpressionNode, allowAliases: boolean): ExpressionNode => {
    const aliased = aliasTarget(expression, aliases);
    if (aliased !== undefined && expressionKey(aliased) !== expressionKey(expression)) {
      // In ORDER BY an output alias wins over a column (DuckDB's rule); the final query keeps the aliases.
      // Elsewhere which one DuckDB picks is not worth guessing.
      return allowAliases ? expression : refuse();
    }
    const group = groupIndex.get(expressionKey(expression));
    if (group !== undefined) return reference(`quarry_g${group}`);
    if (scope.isAggregate(expression)) {
      const call = aggregateCall(expression, scope);
      const key = expressionKey(call.node);
      let index = aggregateIndex.get(key);
      if (index === undefined) {
        index = aggregates.length;
        aggregates.push(call);
        aggregateIndex.set(key, index);
      }
      return reference(`quarry_final_${index}`);
    }
    const rewrite = (child: unknown) => combine(child as ExpressionNode, allowAliases);
    switch (expression.class) {
      case 'CONSTANT':
        return expression;
      case 'FUNCTION':
        if (expression['filter'] || (expression['order_bys'] as { orders: unknown[] }).orders.length > 0 || expression['distinct']) refuse();
        return { ...expression, children: (expression['children'] as unknown[]).map(rewrite) };
      case 'OPERATOR':
      case 'CONJUNCTION':
        return { ...expression, children: (expression['children'] as unknown[]).map(rewrite) };
      case 'COMPARISON':
        return { ...expression, left: rewrite(expression['left']), right: rewrite(expression['right']) };
      case 'CAST':
      case 'COLLATE':
        return { ...expression, child: rewrite(expression['child']) };
      case 'BETWEEN':
        return { ...expression, input: rewrite(expression['input']), lower: rewrite(expression['lower']), upper: rewrite(expression['upper']) };
      case 'CASE':
        return {
          ...expression,
          case_checks: (expression['case_checks'] as Array<{ when_expr: unknown; then_expr: unknown }>).map((check) => ({ when_expr: rewrite(check.when_expr), then_expr: rewrite(check.then_expr) })),
          else_expr: rewrite(expression['else_expr']),
        };
      default:
        return refuse();
    }
  };

  const select = node.select_list.map((item) => (item.class === 'STAR' ? refuse() : combine(item, false)));
  const having = node.having ? combine(node.having, false) : null;
  const order: OrderTerm[] = [];
  for (const modifier of node.modifiers) {
    if (modifier.type !== 'ORDER_MODIFIER') continue;
    for (const term of modifier.orders ?? []) {
      // ORDER BY 2 names an output position, the same in the final query.
      order.push({ ...term, expression: integerConstant(term.expression) !== undefined ? term.expression : combine(term.expression, true) });
    }
  }
  const limit = node.modifiers.find((modifier) => modifier.type === 'LIMIT_MODIFIER');
  if (limit && (integerConstant(limit.limit) === undefined || (limit.offset && integerConstant(limit.offset) === undefined))) refuse();
  // count(DISTINCT x): x becomes a key of the legs' groups, so one distinct argument at most.
  const distinctArguments = new Map(aggregates.filter((call) => call.kind === 'count-distinct').map((call) => [expressionKey(withoutAlias(call.argument!)), call.argument!]));
  if (distinctArguments.size > 1) refuse();
  const distinct = [...distinctArguments.values()][0];
  return { kind: 'aggregate', groups, aggregates, distinct: distinct && withoutAlias(distinct), select, having, order };
}

function aggregateCall(node: ExpressionNode, scope: Scope): AggregateCall {
  const name = functionName(node);
  const children = node['children'] as ExpressionNode[];
  if (!COMBINABLE.has(name) || node['filter'] || node['export_state'] || (node['order_bys'] as { orders: unknown[] }).orders.length > 0) refuse();
  // DISTINCT only on count(x): the one distinct aggregate the merge computes from the legs' distinct values.
  if (node['distinct'] && (name !== 'count' || children.length !== 1)) refuse();
  if (name === 'count_star' || (name === 'count' && children.length === 0)) return { kind: 'count', node: withoutAlias(node), argument: undefined };
  if (children.length !== 1) refuse();
  const argument = children[0]!;
  scope.requireRowWise(argument);
  if (node['distinct']) return { kind: 'count-distinct', node: withoutAlias(node), argument };
  return { kind: name as Exclude<AggregateCall['kind'], 'count-distinct'>, node: withoutAlias(node), argument };
}

function topKPlan(node: SelectNode, scope: Scope): SplitPlan {
  const order = node.modifiers.find((modifier) => modifier.type === 'ORDER_MODIFIER')?.orders ?? [];
  const limitModifier = node.modifiers.find((modifier) => modifier.type === 'LIMIT_MODIFIER');
  const limit = integerConstant(limitModifier?.limit);
  const offset = limitModifier?.offset ? integerConstant(limitModifier.offset) : 0;
  // Without a LIMIT every row is needed in order anyway: the normal path sorts them.
  if (limit === undefined || offset === undefined || limit + offset > 1_000_000) refuse();
  const star = node.select_list.some((item) => item.class === 'STAR');
  const used = new Set<string>();
  for (const item of node.select_list) {
    if (item.class === 'STAR') {
      // Plain `*` only (no EXCLUDE / REPLACE / COLUMNS): the final query expands it the same way.
      const plain = (item['relation_name'] === '' || String(item['relation_name']).toLowerCase() === scope.qualifier) && (item['exclude_list'] as unknown[]).length === 0 && (item['replace_list'] as unknown[]).length === 0 && !item['columns'] && !item['expr'] && ((item['qualified_exclude_list'] as unknown[] | undefined)?.length ?? 0) === 0 && ((item['rename_list'] as unknown[] | undefined)?.length ?? 0) === 0;
      if (!plain) refuse();
      continue;
    }
    scope.requireRowWise(item);
    for (const expression of expressionsIn(item)) if (expression.class === 'COLUMN_REF') used.add(scope.column(expression)!.name);
  }
  const aliases = aliasesOf(node.select_list);
  const legOrder = order.map((term) => {
    let expression = term.expression;
    const position = integerConstant(expression);
    if (position !== undefined) {
      const item = node.select_list[position - 1];
      if (!item || item.class === 'STAR') refuse();
      expression = item;
    } else {
      // ORDER BY an output alias sorts by that output, even where a column has the same name.
      expression = aliasTarget(expression, aliases) ?? expression;
    }
    scope.requireRowWise(expression);
    for (const reference of expressionsIn(expression)) if (reference.class === 'COLUMN_REF') used.add(scope.column(reference)!.name);
    return { ...term, expression: withoutAlias(expression) };
  });
  const columns = [...scope.dataset.columns.values()].map((column) => column.name).filter((name) => star || used.has(name));
  if (columns.length === 0) refuse();
  return { kind: 'top-k', columns, order: legOrder, limit: limit + offset };
}

function aliasesOf(items: readonly ExpressionNode[]): Map<string, ExpressionNode> {
  return new Map(items.filter((item) => item.alias).map((item) => [item.alias!.toLowerCase(), item]));
}

/** The select item a bare name refers to as an output alias, if any. */
function aliasTarget(expression: ExpressionNode, aliases: ReadonlyMap<string, ExpressionNode>): ExpressionNode | undefined {
  if (expression.class !== 'COLUMN_REF') return undefined;
  const names = expression['column_names'] as string[];
  return names.length === 1 ? aliases.get(names[0]!.toLowerCase()) : undefined;
}

function reference(name: string): ExpressionNode {
  return { class: 'COLUMN_REF', type: 'COLUMN_REF', alias: '', column_names: [name] };
}
