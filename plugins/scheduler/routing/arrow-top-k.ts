import type { RecordBatch, Schema } from 'apache-arrow';
import { answerBatch, cellAt, compareKeys, isReadable, takeCells, type Cell, type CellReference, type SortTerm } from './arrow-cells.js';

/**
 * The merge of a top-k in JS: each leg answered its first k rows in the query's order; the
 * answer is the first k of all of them (after OFFSET), the query's columns copied as they are.
 * Only for plain columns: a query computing its outputs or ordering by an expression is merged
 * by the engine (pushdown-router.ts).
 */
export interface TopKMergePlan {
  readonly kind: 'top-k';
  /** The answer's columns: a name and the leg column copied into it. */
  readonly outputs: ReadonlyArray<{ readonly name: string; readonly column: number }>;
  /** ORDER BY, over leg columns. */
  readonly order: ReadonlyArray<SortTerm & { readonly column: number }>;
  readonly offset: number;
  readonly limit: number;
}

/** The merged answer, or undefined when a column's Arrow layout is not one arrow-cells.ts reads. */
export function mergeTopK(plan: TopKMergePlan, schema: Schema, batches: readonly RecordBatch[]): RecordBatch | undefined {
  if (!schema.fields.every((field) => isReadable(field.type))) return undefined;
  const candidates: Array<{ row: CellReference[]; keys: Cell[] }> = [];
  for (const batch of batches) {
    const columns = batch.data.children;
    for (let index = 0; index < batch.numRows; index++) {
      candidates.push({
        row: columns.map((data) => ({ data, index })),
        keys: plan.order.map((term) => cellAt(columns[term.column]!, index)),
      });
    }
  }
  candidates.sort((left, right) => compareKeys(left.keys, right.keys, plan.order));
  const kept = candidates.slice(plan.offset, plan.offset + plan.limit);
  const columns = plan.outputs.map((output) => {
    const field = schema.fields[output.column]!;
    return { name: output.name, field, data: takeCells(field.type, kept.map((candidate) => candidate.row[output.column]!)) };
  });
  return answerBatch(columns, schema, kept.length);
}
