import { displayWidth, padToWidth, truncateToWidth } from './display-width.js';

/**
 * Draws result tables with Unicode box characters, like the Spice and DuckDB shells:
 *
 *   ┌────────┬─────────┐
 *   │ id     │ name    │
 *   │ bigint │ varchar │
 *   ├────────┼─────────┤
 *   │      1 │ alice   │
 *   └────────┴─────────┘
 */
export interface BoxColumn {
  name: string;
  /** Shown in a second header row; omit for tables without types (the row is then left out). */
  type?: string;
  /** Numbers read best right-aligned, so digits of the same place line up. */
  align: 'left' | 'right';
}

export interface BoxTableOptions {
  /** Cells (and headers) wider than this many terminal cells are cut, ending in `…`. */
  maxColumnWidth?: number;
  /**
   * The terminal's width: a wider table keeps its first and last columns and shows `…` for
   * those between, as DuckDB's shell does; a single column wider than this is cut.
   */
  maxTableWidth?: number;
}

/** A drawn table and how many of its columns it shows. */
export interface DrawnTable {
  text: string;
  shownColumns: number;
}

export const DEFAULT_MAX_COLUMN_WIDTH = 50;

export function renderBoxTable(columns: readonly BoxColumn[], rows: ReadonlyArray<readonly string[]>, options: BoxTableOptions = {}): string {
  return drawBoxTable(columns, rows, options).text;
}

/** Per column: 3 cells of border and padding besides its text; 1 more closes the table. */
const tableWidth = (widths: readonly number[]) => widths.reduce((sum, width) => sum + width + 3, 1);
const ELIDED = '…';

export function drawBoxTable(allColumns: readonly BoxColumn[], allRows: ReadonlyArray<readonly string[]>, options: BoxTableOptions = {}): DrawnTable {
  if (allColumns.length === 0) return { text: '', shownColumns: 0 };
  const maxWidth = Math.max(1, options.maxColumnWidth ?? DEFAULT_MAX_COLUMN_WIDTH);
  const fit = (text: string) => truncateToWidth(escapeControlCharacters(text), maxWidth);
  const naturalWidths = allColumns.map((column, index) => {
    let width = Math.max(displayWidth(fit(column.name)), displayWidth(fit(column.type ?? '')));
    for (const row of allRows) width = Math.max(width, displayWidth(fit(row[index] ?? '')));
    return width;
  });
  const kept = options.maxTableWidth === undefined ? allColumns.map((_, index) => index) : keptColumns(naturalWidths, options.maxTableWidth);
  const shownColumns = kept.filter((index) => index >= 0).length;
  // One column alone wider than the terminal is cut to fit it.
  const cut = shownColumns === 1 && options.maxTableWidth !== undefined ? Math.max(1, options.maxTableWidth - 4 - (kept.length > 1 ? ELIDED.length + 3 : 0)) : maxWidth;
  const fitShown = (text: string) => truncateToWidth(escapeControlCharacters(text), Math.min(maxWidth, cut));
  const columns: BoxColumn[] = kept.map((index) => (index < 0 ? { name: ELIDED, type: allColumns.some((column) => column.type !== undefined) ? ELIDED : undefined, align: 'left' } : allColumns[index]!) as BoxColumn);

  const names = columns.map((column) => fitShown(column.name));
  const hasTypes = columns.some((column) => column.type !== undefined);
  const types = columns.map((column) => fitShown(column.type ?? ''));
  const body = allRows.map((row) => kept.map((index) => (index < 0 ? ELIDED : fitShown(row[index] ?? ''))));

  const widths = columns.map((_, index) => {
    let width = Math.max(displayWidth(names[index]!), hasTypes ? displayWidth(types[index]!) : 0);
    for (const row of body) width = Math.max(width, displayWidth(row[index]!));
    return width;
  });

  const rule = (left: string, middle: string, right: string) => left + widths.map((width) => '─'.repeat(width + 2)).join(middle) + right;
  const line = (cells: readonly string[], align: (index: number) => 'left' | 'right') =>
    `│ ${cells.map((cell, index) => padToWidth(cell, widths[index]!, align(index))).join(' │ ')} │`;

  // Headers follow their column's alignment so a right-aligned number sits under its name's end.
  const columnAlign = (index: number) => columns[index]!.align;
  const lines = [rule('┌', '┬', '┐'), line(names, columnAlign)];
  if (hasTypes) lines.push(line(types, columnAlign));
  lines.push(rule('├', '┼', '┤'));
  for (const row of body) lines.push(line(row, columnAlign));
  lines.push(rule('└', '┴', '┘'));
  return { text: lines.join('\n'), shownColumns };
}

/**
 * The columns a table of `widths` shows within `maxTableWidth` cells: all when they fit;
 * else columns taken from the left and the right in turn while they fit beside a `…` column
 * (-1 in the result) standing for the rest; at least the first.
 */
export function keptColumns(widths: readonly number[], maxTableWidth: number): number[] {
  const all = widths.map((_, index) => index);
  if (tableWidth(widths) <= maxTableWidth || widths.length === 1) return all;
  const left: number[] = [];
  const right: number[] = [];
  let used = tableWidth([ELIDED.length]);
  let next = 0;
  let last = widths.length - 1;
  let fromLeft = true;
  while (next <= last) {
    const index = fromLeft ? next : last;
    if (used + widths[index]! + 3 > maxTableWidth) break;
    used += widths[index]! + 3;
    if (fromLeft) left.push(next++);
    else right.unshift(last--);
    fromLeft = !fromLeft;
  }
  if (left.length === 0) left.push(0);
  return [...left, -1, ...right];
}

const controlCharacters = /[\u0000-\u001f\u007f-\u009f]/g;
const namedEscapes: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Newlines would break the table's rows and escape sequences (ESC ...) in data could
 * rewrite the user's terminal, so control characters are shown as escapes instead.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(controlCharacters, (character) => namedEscapes[character] ?? `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
