import type { CacheStatus } from '../transport/query-transport.js';
import { renderBoxTable } from './box-table.js';
import type { CollectedResult } from './result-collector.js';

export interface ResultOutputOptions {
  elapsedSeconds: number;
  cacheStatus: CacheStatus;
  maxColumnWidth?: number;
}

/**
 * The text printed for a query: the table (or `No results.`), a blank line, then
 * `Time: 0.0123 seconds. 42 rows.` (`500/12345 rows displayed.` when cut), with
 * ` (cached)` when the runtime's result cache answered.
 */
export function renderQueryOutput(result: CollectedResult, options: ResultOutputOptions): string {
  const body =
    result.totalRows === 0 || result.columns.length === 0
      ? 'No results.'
      : renderBoxTable(result.columns, result.rows, options.maxColumnWidth === undefined ? {} : { maxColumnWidth: options.maxColumnWidth });
  return `${body}\n\n${footer(result, options)}\n`;
}

export function footer(result: CollectedResult, options: ResultOutputOptions): string {
  const shown = result.rows.length;
  const rows =
    shown < result.totalRows
      ? `${shown}/${result.totalRows} rows displayed.`
      : `${result.totalRows} ${result.totalRows === 1 ? 'row' : 'rows'}.`;
  return `Time: ${options.elapsedSeconds.toFixed(4)} seconds. ${rows}${cacheNote(options.cacheStatus)}`;
}

/** quarryd sends HIT/STALE; a Spice-style `Hit from ...` counts as a hit too. */
function cacheNote(status: CacheStatus): string {
  const normalized = status?.toLowerCase() ?? '';
  if (normalized.startsWith('stale')) return ' (cached, stale)';
  if (normalized.startsWith('hit')) return ' (cached)';
  return '';
}
