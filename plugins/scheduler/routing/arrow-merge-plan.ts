import type { SortTerm } from './arrow-cells.js';
import type { AggregateMergePlan } from './arrow-merge.js';
import type { TopKMergePlan } from './arrow-top-k.js';
import type { SplitPlan } from './query-shape.js';
import { expressionsIn, integerConstant, type ExpressionNode, type OrderTerm, type SelectNode } from './syntax-tree.js';

/** A column as DESCRIBE names and types it. */
export interface DescribedColumn {
  readonly name: string;
  readonly type: string;
}

/** The scheduler engine's settings that decide ORDER BY and text comparison when a query leaves them open. */
export interface OrderSettings {
  /** `default_order`: ASCENDING or DESCENDING. */
  readonly order: string;
  /** `default_null_order`: NULLS_LAST, NULLS_FIRST, NULLS_FIRST_ON_ASC_LAST_ON_DESC or NULLS_LAST_ON_ASC_FIRST_ON_DESC. */
  readonly nullOrder: string;
  /** `default_collation`: empty when text compares by its bytes. */
  readonly collation: string;
}

/** Types whose Arrow layout arrow-cells.ts reads, and whose equality and order are their bytes' or numbers'. */
const COMPARABLE = /^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|HUGEINT|DECIMAL\(\d+,\s*\d+\)|VARCHAR|DATE|TIMESTAMP)$/;
/** Types a top-k copies without comparing them (its ORDER BY columns must be COMPARABLE). */
const COPYABLE = /^(FLOAT|DOUBLE)$/;
/** Partial sums the merge adds exactly: int128 values (HUGEINT, DECIMAL). Doubles are left to the engine. */
const EXACT_SUM = /^(HUGEINT|DECIMAL\(\d+,\s*\d+\))$/;

type AggregatePlan = Extract<SplitPlan, { kind: 'aggregate' }>;
type TopKPlan = Extract<SplitPlan, { kind: 'top-k' }>;
type Declined = { declined: string };

/**
 * The JS merge of an aggregate split (arrow-merge.ts), when the query is the plain case it
 * handles; otherwise why not (the engine merges): no HAVING, no avg,
 * outputs that are groups or aggregates as they are, ORDER BY outputs, exact types only, and
 * text compared by bytes (no COLLATE, no default collation). `legTypes` are the legs' columns,
 * `described` the single node's answer: each output must keep its leg column's type.
 */
export function arrowMergePlan(input: {
  node: SelectNode;
  plan: AggregatePlan;
  legTypes: readonly DescribedColumn[];
  described: readonly DescribedColumn[];
  settings: OrderSettings;
}): AggregateMergePlan | Declined {
  const { node, plan, legTypes, described, settings } = input;
  if (plan.having) return { declined: 'HAVING' };
  const groups = plan.groups.length;
  const comparable = (type: string | undefined, tree: unknown) => type !== undefined && comparableIn(settings, type, tree);
  for (const [index, group] of plan.groups.entries()) if (!comparable(legTypes[index]?.type, group)) return { declined: `a group of type ${legTypes[index]?.type}` };
  // The legs' columns: the groups, quarry_d (the argument of count(DISTINCT)), one partial per other aggregate.
  if (plan.distinct && !comparable(legTypes[groups]?.type, plan.distinct)) return { declined: `count(DISTINCT) of type ${legTypes[groups]?.type}` };
  let column = groups + (plan.distinct ? 1 : 0);
  const aggregates: Array<AggregateMergePlan['aggregates'][number]> = [];
  for (const call of plan.aggregates) {
    if (call.kind === 'count-distinct') {
      aggregates.push({ kind: call.kind });
      continue;
    }
    if (call.kind === 'avg') return { declined: 'avg()' };
    const type = legTypes[column]?.type;
    const fits = call.kind === 'count' ? type === 'BIGINT' : call.kind === 'sum' ? type !== undefined && EXACT_SUM.test(type) : comparable(type, call.node);
    if (!fits) return { declined: `${call.kind}() of type ${type}` };
    aggregates.push({ kind: call.kind, column: column++ });
  }
  if (column !== legTypes.length || described.length !== plan.select.length) return { declined: 'the legs\' columns are not the groups and partials' };

  const outputs: Array<AggregateMergePlan['outputs'][number]> = [];
  for (const [index, item] of plan.select.entries()) {
    const source = sourceOf(item, groups, aggregates.length);
    if (source === undefined) return { declined: 'an output computed from groups or aggregates' };
    // The engine's merge casts each output to the single node's type: here it must already be that type.
    const aggregate = 'aggregate' in source ? aggregates[source.aggregate]! : undefined;
    const type = aggregate === undefined ? legTypes[(source as { group: number }).group]!.type : 'column' in aggregate ? legTypes[aggregate.column]!.type : 'BIGINT';
    if (type !== described[index]!.type) return { declined: `an output of type ${described[index]!.type} from ${type}` };
    outputs.push({ name: described[index]!.name, ...source });
  }

  const aliases = new Map(node.select_list.map((item, index) => [item.alias?.toLowerCase(), index] as const).filter(([alias]) => alias));
  const order: Array<AggregateMergePlan['order'][number]> = [];
  for (const term of plan.order) {
    const output = orderedOutput(term.expression, outputs, groups, aggregates.length, aliases);
    if (output === undefined) return { declined: 'ORDER BY something other than an output' };
    const sort = sortTerm(term, settings);
    if ('declined' in sort) return sort;
    order.push({ ...sort, output });
  }
  const window = limitOf(node);
  if ('declined' in window) return window;
  return { kind: 'aggregate', groups, aggregates, outputs, order, ...window };
}

/**
 * The JS merge of a top-k split (arrow-top-k.ts) when its outputs are the legs' columns as
 * they are (`*` or plain column names) and it orders by plain columns of exact types;
 * otherwise why not (the engine runs the query over the legs' rows).
 */
export function topKMergePlan(input: {
  node: SelectNode;
  plan: TopKPlan;
  legTypes: readonly DescribedColumn[];
  described: readonly DescribedColumn[];
  settings: OrderSettings;
}): TopKMergePlan | Declined {
  const { node, plan, legTypes, described, settings } = input;
  if (legTypes.length !== plan.columns.length) return { declined: 'the legs\' columns are not the query\'s' };
  const byName = new Map(plan.columns.map((name, index) => [name.toLowerCase(), index]));
  // query-shape.ts let through only references to the dataset's columns (`amount`, `t.amount`).
  const columnOf = (expression: ExpressionNode) => {
    if (expression.class !== 'COLUMN_REF') return undefined;
    return byName.get(String((expression['column_names'] as string[]).at(-1)).toLowerCase());
  };
  const columns: number[] = [];
  for (const item of node.select_list) {
    if (item.class === 'STAR') columns.push(...plan.columns.map((_, index) => index));
    else {
      const column = columnOf(item);
      if (column === undefined) return { declined: 'an output computed from columns' };
      columns.push(column);
    }
  }
  if (columns.length !== described.length) return { declined: 'the outputs are not the described columns' };
  const outputs: Array<TopKMergePlan['outputs'][number]> = [];
  for (const [index, column] of columns.entries()) {
    const type = legTypes[column]!.type;
    if (type !== described[index]!.type || !(COMPARABLE.test(type) || COPYABLE.test(type))) return { declined: `an output of type ${described[index]!.type} from ${type}` };
    outputs.push({ name: described[index]!.name, column });
  }
  const order: Array<TopKMergePlan['order'][number]> = [];
  for (const term of plan.order) {
    const column = columnOf(term.expression);
    if (column === undefined) return { declined: 'ORDER BY an expression' };
    if (!comparableIn(settings, legTypes[column]!.type, term.expression)) return { declined: `ORDER BY a column of type ${legTypes[column]!.type}` };
    const sort = sortTerm(term, settings);
    if ('declined' in sort) return sort;
    order.push({ ...sort, column });
  }
  const window = limitOf(node);
  if ('declined' in window) return window;
  if (window.limit === undefined) return { declined: 'no LIMIT' };
  return { kind: 'top-k', outputs, order, offset: window.offset, limit: window.limit };
}

/** Equality and order the JS merge reproduces: exact types, text by its bytes (no COLLATE, no default collation). */
function comparableIn(settings: OrderSettings, type: string, tree: unknown): boolean {
  if (!COMPARABLE.test(type)) return false;
  if (type !== 'VARCHAR') return true;
  return settings.collation === '' && ![...expressionsIn(tree)].some((expression) => expression.class === 'COLLATE');
}

/** An ORDER BY term's direction and NULL placement, the engine's defaults filled in. */
function sortTerm(term: OrderTerm, settings: OrderSettings): SortTerm | Declined {
  const direction = term.type === 'ORDER_DEFAULT' ? settings.order : term.type;
  if (direction !== 'ASCENDING' && direction !== 'DESCENDING') return { declined: `ORDER BY direction ${direction}` };
  const descending = direction === 'DESCENDING';
  // The syntax tree spells it `NULLS FIRST`, the setting `NULLS_FIRST`.
  const nullsFirst = nullsFirstFor((term.null_order === 'ORDER_DEFAULT' ? settings.nullOrder : term.null_order).replaceAll(' ', '_'), descending);
  if (nullsFirst === undefined) return { declined: `NULL order ${term.null_order} (${settings.nullOrder})` };
  return { descending, nullsFirst };
}

function limitOf(node: SelectNode): { offset: number; limit: number | undefined } | Declined {
  const modifier = node.modifiers.find((candidate) => candidate.type === 'LIMIT_MODIFIER');
  const limit = modifier?.limit ? integerConstant(modifier.limit) : undefined;
  const offset = modifier?.offset ? integerConstant(modifier.offset) : 0;
  if ((modifier?.limit && limit === undefined) || offset === undefined) return { declined: 'LIMIT or OFFSET not a constant' };
  return { offset, limit };
}

/** What a rewritten select item shows as it is: a group (`quarry_g<i>`) or an aggregate (`quarry_final_<j>`). */
function sourceOf(item: ExpressionNode, groups: number, aggregates: number): { group: number } | { aggregate: number } | undefined {
  if (item.class !== 'COLUMN_REF') return undefined;
  const names = item['column_names'] as string[];
  const match = names.length === 1 ? /^quarry_(g|final_)(\d+)$/.exec(names[0]!) : null;
  if (!match) return undefined;
  const index = Number(match[2]);
  if (match[1] === 'g') return index < groups ? { group: index } : undefined;
  return index < aggregates ? { aggregate: index } : undefined;
}

/** The output an ORDER BY term sorts by: a position, an output alias, or a group / aggregate that is an output. */
function orderedOutput(expression: ExpressionNode, outputs: AggregateMergePlan['outputs'], groups: number, aggregates: number, aliases: ReadonlyMap<string | undefined, number>): number | undefined {
  const position = integerConstant(expression);
  if (position !== undefined) return position >= 1 && position <= outputs.length ? position - 1 : undefined;
  const source = sourceOf(expression, groups, aggregates);
  if (source !== undefined) {
    const output = outputs.findIndex((candidate) => ('group' in source ? 'group' in candidate && candidate.group === source.group : 'aggregate' in candidate && candidate.aggregate === source.aggregate));
    return output >= 0 ? output : undefined;
  }
  if (expression.class !== 'COLUMN_REF') return undefined;
  const names = expression['column_names'] as string[];
  return names.length === 1 ? aliases.get(names[0]!.toLowerCase()) : undefined;
}

function nullsFirstFor(nullOrder: string, descending: boolean): boolean | undefined {
  switch (nullOrder) {
    case 'NULLS_FIRST':
      return true;
    case 'NULLS_LAST':
      return false;
    case 'NULLS_FIRST_ON_ASC_LAST_ON_DESC':
      return !descending;
    case 'NULLS_LAST_ON_ASC_FIRST_ON_DESC':
      return descending;
    default:
      return undefined;
  }
}
