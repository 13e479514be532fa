/** A result saved as CSV, JSON (an array of row objects) or the Arrow IPC stream the runtime sent. */
import type { Table } from 'apache-arrow';
import { saveFile } from './dom.js';
import { columnView, csvField } from './values.js';

export type ExportFormat = 'csv' | 'json' | 'arrow';

export function resultAsCsv(table: Table): string {
  const views = table.schema.fields.map(columnView);
  const vectors = views.map((_, index) => table.getChildAt(index));
  const lines = [views.map((view) => csvField(view.name)).join(',')];
  for (let row = 0; row < table.numRows; row += 1) {
    lines.push(vectors.map((vector, index) => {
      const value = vector?.get(row);
      return value === null || value === undefined ? '' : csvField(views[index]!.format(value));
    }).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

export function resultAsJson(table: Table): string {
  const views = table.schema.fields.map(columnView);
  const vectors = views.map((_, index) => table.getChildAt(index));
  const rows: Record<string, unknown>[] = [];
  for (let row = 0; row < table.numRows; row += 1) {
    const record: Record<string, unknown> = {};
    views.forEach((view, index) => {
      const value = vectors[index]?.get(row);
      record[view.name] = value === null || value === undefined ? null : view.json(value);
    });
    rows.push(record);
  }
  return JSON.stringify(rows);
}

export function saveResult(format: ExportFormat, table: Table, arrowBytes: Uint8Array): void {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
  if (format === 'csv') saveFile(`result-${stamp}.csv`, resultAsCsv(table), 'text/csv');
  else if (format === 'json') saveFile(`result-${stamp}.json`, resultAsJson(table), 'application/json');
  else saveFile(`result-${stamp}.arrows`, arrowBytes as Uint8Array<ArrayBuffer>, 'application/vnd.apache.arrow.stream');
}
