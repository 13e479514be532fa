/**
 * How far a dataset's load (or refresh) has come, for `/v1/datasets`, the periodic log line,
 * the `dataset_load_rows` / `dataset_load_bytes` metrics and `quarry status`.
 *
 * A load has up to two phases:
 *  - `fetching`: a connector reads the source itself (PostgreSQL, HTTP APIs, a cluster's
 *    executors) and hands over Arrow batches, rows and bytes counted exactly as they come, the
 *    total the source's own estimate where it gives one (PostgreSQL's `reltuples`); or it
 *    downloads files into a local mirror (an object store), bytes against the listed sizes;
 *  - `reading`: the engine reads the source into the acceleration table; rows and percent
 *    come from DuckDB's query progress, bytes from the share of the source's local files read
 *    so far. DuckDB counts rows exactly for Parquet and tables; for CSV and JSON its figures are
 *    guesses from the file size (46M "rows" for a 20M-row CSV), so no rows are shown for those,
 *    only the percent and bytes, which are right.
 */

/** What a connector reports while it reads: counted rows and Arrow bytes, and totals where known. */
export interface LoadProgressSink {
  read(rows: number, bytes: number): void;
  total(totals: { rows?: number; bytes?: number }): void;
}

/** The engine's own progress on the loading connection (`percentage` -1: nothing running). */
export interface EngineProgress {
  readonly percentage: number;
  readonly rows_processed: bigint;
  readonly total_rows_to_process: bigint;
}

export interface LoadProgressStatus {
  readonly kind: 'load' | 'refresh';
  readonly phase: 'fetching' | 'reading';
  readonly started_at: string;
  readonly elapsed_ms: number;
  readonly rows_read: number | null;
  readonly rows_total: number | null;
  readonly bytes_read: number | null;
  readonly bytes_total: number | null;
  /** 0–100 where a total is known; null otherwise. */
  readonly percent: number | null;
  readonly rows_per_second: number | null;
  readonly bytes_per_second: number | null;
  /** Seconds left at the rate so far; null without a total or before anything was read. */
  readonly eta_seconds: number | null;
}

/** The last finished load or refresh: what it wrote, how long it took. */
export interface LastLoad {
  readonly kind: 'load' | 'refresh';
  readonly finished_at: string;
  readonly duration_ms: number;
  /** Rows written into the acceleration table (appended, for an append refresh); null when not counted. */
  readonly rows: number | null;
  /** Arrow bytes fetched, or the size of the local files read; null when unknown. */
  readonly bytes: number | null;
}

export class LoadProgress {
  readonly kind: 'load' | 'refresh';
  readonly #startedAt = new Date();
  readonly #engineProgress: () => EngineProgress | undefined;
  readonly #measureSourceBytes: () => number | undefined;
  readonly #engineCountsRows: boolean;
  #sourceBytes: number | undefined;
  #phase: 'fetching' | 'reading' = 'fetching';
  #phaseStarted = performance.now();
  #fetchedRows = 0;
  #fetchedBytes = 0;
  #fetchTotals: { rows?: number; bytes?: number } = {};

  /**
   * `engineProgress` reads the loading connection's progress; `sourceBytes` measures the local
   * files the engine reads, when it starts on them (undefined when it reads none, e.g. a staged fetch).
   */
  constructor(kind: 'load' | 'refresh', engineProgress: () => EngineProgress | undefined, sourceBytes: () => number | undefined, options: { engineCountsRows?: boolean } = {}) {
    this.kind = kind;
    this.#engineCountsRows = options.engineCountsRows ?? true;
    this.#engineProgress = engineProgress;
    this.#measureSourceBytes = sourceBytes;
  }

  /** The sink a connector's read reports to; using it puts the load in its `fetching` phase. */
  sink(): LoadProgressSink {
    return {
      read: (rows, bytes) => {
        this.#enter('fetching');
        this.#fetchedRows += rows;
        this.#fetchedBytes += bytes;
      },
      total: (totals) => {
        this.#enter('fetching');
        this.#fetchTotals = { ...this.#fetchTotals, ...totals };
      },
    };
  }

  /** The connector is done: the engine now reads what it fetched (or the files) into the table. */
  reading(): void {
    this.#sourceBytes = this.#measureSourceBytes();
    this.#enter('reading');
  }

  #enter(phase: 'fetching' | 'reading'): void {
    if (this.#phase === phase) return;
    this.#phase = phase;
    this.#phaseStarted = performance.now();
  }

  snapshot(): LoadProgressStatus {
    const now = performance.now();
    const phaseSeconds = (now - this.#phaseStarted) / 1000;
    const figures = this.#phase === 'fetching' ? this.#fetchFigures() : this.#readFigures();
    const rate = (done: number | null) => (done === null || phaseSeconds <= 0 ? null : Math.round(done / phaseSeconds));
    const fraction = figures.percent === null ? null : figures.percent / 100;
    return {
      kind: this.kind,
      phase: this.#phase,
      started_at: this.#startedAt.toISOString(),
      elapsed_ms: Date.now() - this.#startedAt.getTime(),
      ...figures,
      percent: figures.percent === null ? null : Math.round(figures.percent * 10) / 10,
      rows_per_second: rate(figures.rows_read),
      bytes_per_second: rate(figures.bytes_read),
      eta_seconds: fraction === null || fraction <= 0 ? null : Math.max(0, Math.round((phaseSeconds * (1 - fraction)) / fraction)),
    };
  }

  /** The load succeeded having written `rows` (undefined: not counted). */
  finished(rows: number | undefined): LastLoad {
    const fetched = this.#fetchedRows > 0 || this.#fetchedBytes > 0;
    return {
      kind: this.kind,
      finished_at: new Date().toISOString(),
      duration_ms: Date.now() - this.#startedAt.getTime(),
      rows: rows ?? (fetched ? this.#fetchedRows : null),
      bytes: fetched ? this.#fetchedBytes : (this.#sourceBytes ?? null),
    };
  }

  #fetchFigures(): Pick<LoadProgressStatus, 'rows_read' | 'rows_total' | 'bytes_read' | 'bytes_total' | 'percent'> {
    const rowsTotal = this.#fetchTotals.rows;
    const bytesTotal = this.#fetchTotals.bytes;
    const percent = rowsTotal ? (this.#fetchedRows / rowsTotal) * 100 : bytesTotal ? (this.#fetchedBytes / bytesTotal) * 100 : null;
    // A download (an object store's files) counts bytes only, and a source may report nothing: unknown, not 0.
    return {
      rows_read: this.#fetchedRows > 0 || rowsTotal !== undefined ? this.#fetchedRows : null,
      // An estimate (PostgreSQL's statistics) may be passed: the total is then what was read so far.
      rows_total: rowsTotal === undefined ? null : Math.max(rowsTotal, this.#fetchedRows),
      bytes_read: this.#fetchedBytes > 0 || bytesTotal !== undefined ? this.#fetchedBytes : null,
      bytes_total: bytesTotal === undefined ? null : Math.max(bytesTotal, this.#fetchedBytes),
      percent: percent === null ? null : Math.min(percent, 99.9),
    };
  }

  #readFigures(): Pick<LoadProgressStatus, 'rows_read' | 'rows_total' | 'bytes_read' | 'bytes_total' | 'percent'> {
    const engine = this.#engineProgress();
    const running = engine !== undefined && engine.percentage >= 0;
    const percent = running ? Math.min(engine.percentage, 100) : null;
    const rows = running && this.#engineCountsRows;
    return {
      rows_read: rows ? Number(engine.rows_processed) : null,
      rows_total: rows && engine.total_rows_to_process > 0n ? Number(engine.total_rows_to_process) : null,
      bytes_read: percent === null || this.#sourceBytes === undefined ? null : Math.round((this.#sourceBytes * percent) / 100),
      bytes_total: this.#sourceBytes ?? null,
      percent,
    };
  }
}

/** A progress snapshot as log fields: what is known, nothing null. */
export function progressFields(status: LoadProgressStatus): Record<string, string | number | boolean> {
  const fields: Record<string, string | number | boolean> = { phase: status.phase, elapsed_ms: status.elapsed_ms };
  for (const key of ['percent', 'rows_read', 'rows_total', 'bytes_read', 'bytes_total', 'rows_per_second', 'bytes_per_second', 'eta_seconds'] as const) {
    const value = status[key];
    if (value !== null) fields[key] = value;
  }
  return fields;
}

/** The rows a statement wrote, from the `Count` column DuckDB answers CREATE TABLE AS and INSERT with; 0 for others. */
export function rowCountOf(result: { columnNames(): string[]; getRows(): unknown[][] }): number {
  if (result.columnNames()[0] !== 'Count') return 0;
  const value = result.getRows()[0]?.[0];
  return typeof value === 'bigint' || typeof value === 'number' ? Number(value) : 0;
}
