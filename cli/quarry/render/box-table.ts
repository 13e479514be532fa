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
}

export const DEFAULT_MAX_COLUMN_WIDTH = 50;

export function renderBoxTable(columns: readonly BoxColumn[], rows: ReadonlyArray<readonly string[]>, options: BoxTableOptions = {}): string {
  if (columns.length === 0) return '';
  const maxWidth = Math.max(1, options.maxColumnWidth ?? DEFAULT_MAX_COLUMN_WIDTH);
  const fit = (text: string) => truncateToWidth(escapeControlCharacters(text), maxWidth);

  const names = columns.map((column) => fit(column.name));
  const hasTypes = columns.some((column) => column.type !== undefined);
  const types = columns.map((column) => fit(column.type ?? ''));
  const body = rows.map((row) => columns.map((_, index) => fit(row[index] ?? '')));

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
  return lines.join('\n');
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
