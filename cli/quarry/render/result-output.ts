import type { CacheStatus, ServedFromSource } from '../transport/query-transport.js';
import { drawBoxTable, escapeControlCharacters } from './box-table.js';
import { displayWidth, padToWidth } from './display-width.js';
import type { CollectedResult } from './result-collector.js';

export interface ResultOutputOptions {
  elapsedSeconds: number;
  cacheStatus: CacheStatus;
  servedFromSource?: ServedFromSource;
  maxColumnWidth?: number;
  /** The terminal's width: wider tables elide middle columns. */
  maxTableWidth?: number;
  /** `table` (boxes), `expanded` (psql's `\x`: a block per row) or `line` (DuckDB's `.mode line`). */
  layout?: 'table' | 'expanded' | 'line';
  /** `.timer off` / `\timing`: the footer leaves the time out. */
  timing?: boolean;
}

/**
 * The text printed for a query: the table (or `No results.`), a blank line, then
 * `Time: 0.0123 seconds. 42 rows.` (`500/12345 rows displayed.` when cut), with
 * ` (cached)` when the runtime's result cache answered.
 */
export function renderQueryOutput(result: CollectedResult, options: ResultOutputOptions): string {
  if (result.totalRows === 0 || result.columns.length === 0) return `No results.\n\n${footer(result, options)}\n`;
  const layout = options.layout ?? 'table';
  if (layout !== 'table') return `${renderRecords(result, layout)}\n${footer(result, options)}\n`;
  const drawn = drawBoxTable(result.columns, result.rows, {
    ...(options.maxColumnWidth === undefined ? {} : { maxColumnWidth: options.maxColumnWidth }),
    ...(options.maxTableWidth === undefined ? {} : { maxTableWidth: options.maxTableWidth }),
  });
  const columnsNote = drawn.shownColumns < result.columns.length ? ` ${drawn.shownColumns} of ${result.columns.length} columns shown (\\x shows every column).` : '';
  return `${drawn.text}\n\n${footer(result, options)}${columnsNote}\n`;
}

/**
 * One block per row. `expanded` as psql's `\x`: `-[ RECORD 1 ]` then `name | value`;
 * `line` as DuckDB's `.mode line`: `name = value`, a blank line between rows.
 */
function renderRecords(result: CollectedResult, layout: 'expanded' | 'line'): string {
  const names = result.columns.map((column) => escapeControlCharacters(column.name));
  const width = Math.max(...names.map((name) => displayWidth(name)));
  const blocks = result.rows.map((row, rowIndex) => {
    const lines = names.map((name, index) => {
      const value = escapeControlCharacters(row[index] ?? '');
      return layout === 'expanded' ? `${padToWidth(name, width, 'left')} | ${value}` : `${padToWidth(name, width, 'right')} = ${value}`;
    });
    return layout === 'expanded' ? [`-[ RECORD ${rowIndex + 1} ]${'-'.repeat(Math.max(0, width - 8))}`, ...lines].join('\n') : lines.join('\n');
  });
  return `${blocks.join(layout === 'expanded' ? '\n' : '\n\n')}\n`;
}

export function footer(result: CollectedResult, options: ResultOutputOptions): string {
  const shown = result.rows.length;
  const rows =
    shown < result.totalRows
      ? `${shown}/${result.totalRows} rows displayed.`
      : `${result.totalRows} ${result.totalRows === 1 ? 'row' : 'rows'}.`;
  const time = options.timing === false ? '' : `Time: ${options.elapsedSeconds.toFixed(4)} seconds. `;
  return `${time}${rows}${cacheNote(options.cacheStatus)}${servedFromNote(options.servedFromSource)}`;
}

/** The runtime answered from the source while the accelerated copy loads: slower, and live. */
export function servedFromNote(loading: ServedFromSource): string {
  if (loading === undefined) return '';
  return ` (answered by the source: ${loading.length > 0 ? loading.join(', ') : 'a dataset'} still loading into its acceleration)`;
}

/** quarryd sends HIT/STALE; a Spice-style `Hit from ...` counts as a hit too. */
function cacheNote(status: CacheStatus): string {
  const normalized = status?.toLowerCase() ?? '';
  if (normalized.startsWith('stale')) return ' (cached, stale)';
  if (normalized.startsWith('hit')) return ' (cached)';
  return '';
}
