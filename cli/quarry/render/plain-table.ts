import { displayWidth, padToWidth } from './display-width.js';

/**
 * A borderless table of columns separated by two spaces, as `quarry status` prints it:
 *
 *   NAME    ENDPOINT         STATUS
 *   http    127.0.0.1:8090   Ready
 *
 * The last column is not padded, so lines carry no trailing blanks.
 */
export function renderPlainTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const all = [headers, ...rows];
  const widths = headers.map((_, index) => Math.max(...all.map((row) => displayWidth(row[index] ?? ''))));
  const lines = all.map((row) =>
    headers
      .map((_, index) => (index === headers.length - 1 ? (row[index] ?? '') : padToWidth(row[index] ?? '', widths[index]!, 'left')))
      .join('  '),
  );
  return `${lines.join('\n')}\n`;
}
