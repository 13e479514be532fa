import type { Schema } from 'apache-arrow';
import type { ArrowQueryResult } from '../transport/query-transport.js';
import { columnTypeName, isNumericType } from './arrow-type-names.js';
import type { BoxColumn } from './box-table.js';
import { formatValue } from './value-format.js';

/** Rows shown by default: enough to read, few enough that a big result does not flood the terminal. */
export const DISPLAY_ROW_LIMIT = 500;

export interface CollectedResult {
  columns: BoxColumn[];
  /** The first rows (up to the display limit), every value already text. */
  rows: string[][];
  /** Every row of the result, shown or not. */
  totalRows: number;
}

export function columnsOf(schema: Schema | undefined): BoxColumn[] {
  return (schema?.fields ?? []).map((field) => ({
    name: field.name,
    type: columnTypeName(field),
    align: isNumericType(field.type) ? 'right' : 'left',
  }));
}

/**
 * Reads the whole result stream but keeps only the first `limit` rows, formatted: the
 * total row count needs every batch, the memory does not.
 */
export async function collectResult(
  result: Pick<ArrowQueryResult, 'schema' | 'batches'>,
  limit: number = DISPLAY_ROW_LIMIT,
  onRows?: (received: number) => void,
): Promise<CollectedResult> {
  const columns = columnsOf(result.schema);
  const rows: string[][] = [];
  let totalRows = 0;
  for await (const batch of result.batches) {
    const take = Math.min(batch.numRows, Math.max(0, limit - rows.length));
    const children = batch.data.children;
    for (let row = 0; row < take; row += 1) {
      rows.push(children.map((column) => formatValue(column, row)));
    }
    totalRows += batch.numRows;
    onRows?.(totalRows);
  }
  return { columns, rows, totalRows };
}
