/** A running load as `GET /v1/datasets` gives it (`progress`). */
export interface DatasetProgress {
  kind: string;
  phase: string;
  rows_read: number | null;
  rows_total: number | null;
  bytes_read: number | null;
  bytes_total: number | null;
  percent: number | null;
  rows_per_second: number | null;
  bytes_per_second: number | null;
  eta_seconds: number | null;
  elapsed_ms: number;
}

const BAR_WIDTH = 20;

/**
 * One line for a running load: a bar when the total is known, then what was read of what,
 * the rate and the time left:
 *
 *   [█████░░░░░░░░░░░░░░░]  25.0%  1,000 / 4,000 rows  3.9 KiB  2,000 rows/s  ETA 2s
 */
export function describeProgress(progress: DatasetProgress): string {
  const parts: string[] = [];
  if (progress.percent !== null) {
    const filled = Math.min(BAR_WIDTH, Math.round((progress.percent / 100) * BAR_WIDTH));
    parts.push(`[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${progress.percent.toFixed(1).padStart(5)}%`);
  } else {
    parts.push(`[${'·'.repeat(BAR_WIDTH)}]   ?  `);
  }
  if (progress.rows_read !== null) {
    parts.push(`${count(progress.rows_read)}${progress.rows_total === null ? '' : ` / ${count(progress.rows_total)}`} rows`);
  }
  if (progress.bytes_read !== null) parts.push(`${bytes(progress.bytes_read)}${progress.bytes_total === null ? '' : ` / ${bytes(progress.bytes_total)}`}`);
  if (progress.rows_per_second !== null && progress.rows_per_second > 0) parts.push(`${count(progress.rows_per_second)} rows/s`);
  else if (progress.bytes_per_second !== null && progress.bytes_per_second > 0) parts.push(`${bytes(progress.bytes_per_second)}/s`);
  parts.push(progress.eta_seconds === null ? `${seconds(progress.elapsed_ms / 1000)} elapsed` : `ETA ${seconds(progress.eta_seconds)}`);
  return `${progress.phase} ${parts.join('  ')}`;
}

function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function bytes(value: number): string {
  let unit = 0;
  let scaled = value;
  while (scaled >= 1024 && unit < UNITS.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${scaled.toFixed(1)} ${UNITS[unit]}`;
}

export function seconds(value: number): string {
  const whole = Math.round(value);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}
