import type { Data, Field, RecordBatch, Schema } from 'apache-arrow';
import { BIGINT } from '../../../core/engine/duckdb-api.js';
import { arrowFieldFor } from '../../../core/engine/arrow/duckdb-to-arrow-type.js';
import { answerBatch, cellAt, compareCells, compareKeys, decimalColumn, int64Column, isReadable, takeCells, type Cell, type CellReference, type SortTerm } from './arrow-cells.js';

/**
 * The merge of partial aggregates in JS, for the plain case: groups with count / sum / min /
 * max / count(DISTINCT), outputs that are those groups and aggregates themselves, ORDER BY
 * outputs, LIMIT. The engine's merge (a temporary table, a query, a drop) costs milliseconds
 * over a few rows; this costs microseconds. Every value is copied, counted or summed exactly,
 * so the answer is the one the engine's merge gives; where that cannot be promised (an
 * overflow, an unexpected layout) it answers undefined and the engine merges the same partials.
 */
export interface AggregateMergePlan {
  readonly kind: 'aggregate';
  /** The legs' leading columns `quarry_g<i>`, grouped on. */
  readonly groups: number;
  /**
   * Each aggregate and the leg column of its partial (`quarry_a<j>`); count(DISTINCT) has none:
   * it counts the values of the column `quarry_d`, which follows the groups.
   */
  readonly aggregates: ReadonlyArray<{ readonly kind: 'count' | 'sum' | 'min' | 'max'; readonly column: number } | { readonly kind: 'count-distinct' }>;
  /** The answer's columns: a name and the group or aggregate it shows. */
  readonly outputs: ReadonlyArray<{ readonly name: string } & ({ readonly group: number } | { readonly aggregate: number })>;
  /** ORDER BY, over outputs. */
  readonly order: ReadonlyArray<SortTerm & { readonly output: number }>;
  readonly offset: number;
  readonly limit: number | undefined;
}

/** Sums beyond 38 digits are left to the engine (its DECIMAL(38) and HUGEINT overflow rules). */
const SUM_LIMIT = 10n ** 38n - 1n;

interface Group {
  /** A row holding the group's values. */
  readonly keys: CellReference[];
  /** Per aggregate: a running count or sum, or the row holding the minimum / maximum so far. */
  readonly totals: Array<bigint | null>;
  readonly extremes: Array<{ reference: CellReference; value: Cell } | undefined>;
  /** The distinct non-NULL values of `quarry_d` (count(DISTINCT)). */
  readonly distinct: Set<unknown>;
}

/** The merged answer, or undefined when the engine must merge these partials. */
export function mergePartials(plan: AggregateMergePlan, schema: Schema, batches: readonly RecordBatch[]): RecordBatch | undefined {
  if (!schema.fields.every((field) => isReadable(field.type))) return undefined;
  const groups = new Map<unknown, Group>();
  for (const batch of batches) {
    const columns = batch.data.children;
    for (let row = 0; row < batch.numRows; row++) {
      const key = groupKey(columns, plan.groups, row);
      let group = groups.get(key);
      if (!group) {
        group = {
          keys: columns.slice(0, plan.groups).map((data) => ({ data, index: row })),
          totals: plan.aggregates.map((aggregate) => (aggregate.kind === 'count' ? 0n : null)),
          extremes: plan.aggregates.map(() => undefined),
          distinct: new Set(),
        };
        groups.set(key, group);
      }
      if (!accumulate(plan, group, columns, row)) return undefined;
    }
  }
  // An aggregate without GROUP BY answers one row even over nothing: the engine knows its NULLs and zeros.
  if (plan.groups === 0 && groups.size !== 1) return undefined;
  const ordered = [...groups.values()];
  if (plan.order.length > 0) sortGroups(plan, ordered);
  const kept = ordered.slice(plan.offset, plan.limit === undefined ? undefined : plan.offset + plan.limit);
  const columns: Array<{ name: string; field: Field; data: Data }> = [];
  for (const output of plan.outputs) {
    const column = columnOf(plan, output);
    // count(DISTINCT) has no leg column: its field is the one a single node gives a BIGINT.
    const field = column === undefined ? arrowFieldFor(output.name, BIGINT) : schema.fields[column]!;
    let data: Data | undefined;
    if ('group' in output) data = takeCells(field.type, kept.map((group) => group.keys[output.group]!));
    else {
      const index = output.aggregate;
      const kind = plan.aggregates[index]!.kind;
      if (kind === 'min' || kind === 'max') data = takeCells(field.type, kept.map((group) => group.extremes[index]!.reference));
      else if (kind === 'count-distinct') data = int64Column(field.type, kept.map((group) => BigInt(group.distinct.size)));
      else if (kind === 'count') data = int64Column(field.type, kept.map((group) => group.totals[index]!));
      else data = decimalColumn(field.type, kept.map((group) => group.totals[index]!), SUM_LIMIT);
    }
    if (!data) return undefined;
    columns.push({ name: output.name, field, data });
  }
  return answerBatch(columns, schema, kept.length);
}

/** The leg column an output copies its type from; undefined for count(DISTINCT). */
function columnOf(plan: AggregateMergePlan, output: AggregateMergePlan['outputs'][number]): number | undefined {
  if ('group' in output) return output.group;
  const aggregate = plan.aggregates[output.aggregate]!;
  return 'column' in aggregate ? aggregate.column : undefined;
}

/** One group key per distinct combination of group values (NULLs group together, as in SQL). */
function groupKey(columns: readonly Data[], count: number, row: number): unknown {
  if (count === 0) return '';
  if (count === 1) return cellAt(columns[0]!, row);
  const parts: string[] = [];
  for (let index = 0; index < count; index++) {
    const cell = cellAt(columns[index]!, row);
    // Each position has one type: a type tag keeps NULL apart from the text 'null'.
    parts.push(cell === null ? 'N' : `v${typeof cell === 'bigint' ? cell.toString() : JSON.stringify(cell)}`);
  }
  return parts.join('\u0000');
}

function accumulate(plan: AggregateMergePlan, group: Group, columns: readonly Data[], row: number): boolean {
  for (const [index, aggregate] of plan.aggregates.entries()) {
    if (aggregate.kind === 'count-distinct') {
      const value = cellAt(columns[plan.groups]!, row);
      if (value !== null) group.distinct.add(value);
      continue;
    }
    const data = columns[aggregate.column]!;
    const value = cellAt(data, row);
    if (aggregate.kind === 'min' || aggregate.kind === 'max') {
      const best = group.extremes[index];
      const better = best === undefined || (value !== null && (best.value === null || compareCells(value, best.value) * (aggregate.kind === 'min' ? -1 : 1) > 0));
      if (better) group.extremes[index] = { reference: { data, index: row }, value };
      continue;
    }
    if (value === null) continue;
    if (typeof value !== 'bigint') return false;
    const total = group.totals[index] ?? null;
    group.totals[index] = total === null ? value : total + value;
  }
  return true;
}

function sortGroups(plan: AggregateMergePlan, groups: Group[]): void {
  const valueOf = (group: Group, output: AggregateMergePlan['outputs'][number]): Cell => {
    if ('group' in output) return cellAt(group.keys[output.group]!.data, group.keys[output.group]!.index);
    const kind = plan.aggregates[output.aggregate]!.kind;
    if (kind === 'min' || kind === 'max') return group.extremes[output.aggregate]!.value;
    if (kind === 'count-distinct') return BigInt(group.distinct.size);
    return group.totals[output.aggregate]!;
  };
  const keyed = groups.map((group) => ({ group, values: plan.order.map((term) => valueOf(group, plan.outputs[term.output]!)) }));
  keyed.sort((left, right) => compareKeys(left.values, right.values, plan.order));
  keyed.forEach((entry, index) => (groups[index] = entry.group));
}
