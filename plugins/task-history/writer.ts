import type { Logger } from '../../core/log.js';
import { RowColumns, type StoredBatches } from './row-columns.js';
import { StoredIds } from './stored-ids.js';
import type { TaskRow } from './table.js';

export interface TaskWriterOptions {
  /** Writes one batch: `count` rows, with the shapes and extras they name (`RowColumns.batches()`; valid until the returned promise settles). */
  insert(batch: { count: number } & StoredBatches): Promise<void>;
  /** Called with how many rows were lost (buffer full, or an INSERT failed). */
  onDrop(count: number): void;
  log: Logger;
  /** Buffered rows that start a write at once (default 2,000; otherwise the interval does). */
  batchRows?: number;
  /** Longest a row waits before it is written (default 100 ms). */
  flushIntervalMs?: number;
  /** Rows held at most while INSERTs are slower than queries arrive (default 10,000). */
  maxBufferedRows?: number;
  /** Bytes held at most (default 32 MiB). */
  maxBufferedBytes?: number;
  /** The ids rows use across batches, shared with whoever deletes unused shapes (default: the writer's own). */
  ids?: StoredIds;
}

/**
 * Buffers task rows and writes them in batches, so a flood of queries costs one INSERT per
 * ~100 ms or per 2,000 rows instead of one per query. One INSERT runs at a time with every
 * row buffered when it starts; while it runs, rows keep buffering up to a cap, and rows
 * beyond the cap are dropped and counted: task history must never hold the runtime's
 * memory hostage. Rows wait column by column (`RowColumns`), in one of two sets: one fills
 * while the other is written.
 */
export class TaskWriter {
  readonly #options: Required<Omit<TaskWriterOptions, 'log' | 'ids'>> & { log: Logger };
  readonly #ids: StoredIds;
  #filling: RowColumns;
  #spare: RowColumns;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #stopped = false;

  constructor(options: TaskWriterOptions) {
    this.#options = { batchRows: 2000, flushIntervalMs: 100, maxBufferedRows: 10_000, maxBufferedBytes: 32 * 1024 * 1024, ...options };
    this.#ids = options.ids ?? new StoredIds();
    this.#filling = new RowColumns(this.#ids);
    this.#spare = new RowColumns(this.#ids);
  }

  /** Queues a row; false when it was dropped (buffer full or writer stopped). */
  add(row: TaskRow): boolean {
    return this.addWith((columns) => columns.append(row));
  }

  /** Queues the one row `write` appends to the columns (see `RowColumns.startRow`); false when dropped. */
  addWith(write: (columns: RowColumns) => void): boolean {
    const columns = this.#filling;
    if (this.#stopped || columns.rows >= this.#options.maxBufferedRows || columns.bytes > this.#options.maxBufferedBytes) {
      this.#options.onDrop(1);
      return false;
    }
    write(columns);
    if (columns.rows >= this.#options.batchRows) this.#startWriting();
    else this.#schedule();
    return true;
  }

  get buffered(): number {
    return this.#filling.rows;
  }

  /** Writes everything buffered now (and waits for a write already running). */
  async flush(): Promise<void> {
    while (this.#writing || this.#filling.rows > 0) {
      this.#startWriting();
      await this.#writing;
    }
  }

  /** Writes what is left and refuses new rows (shutdown). */
  async stop(): Promise<void> {
    await this.flush();
    this.#stopped = true;
  }

  #startWriting(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#writing || this.#filling.rows === 0) return;
    this.#writing = this.#writeAll().finally(() => {
      this.#writing = undefined;
      // Rows that arrived during the last write wait at most one more interval, unless a
      // whole batch is already waiting.
      if (this.#stopped || this.#filling.rows === 0) return;
      if (this.#filling.rows >= this.#options.batchRows) this.#startWriting();
      else this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#startWriting(), this.#options.flushIntervalMs);
    // Shutdown flushes explicitly; a pending write must not keep the process alive.
    this.#timer.unref();
  }

  /**
   * Writes the rows buffered now, once. Rows that arrive meanwhile wait for the next interval
   * (or `batchRows`): writing them at once would keep a write running back to back under any
   * steady load, one small append every few milliseconds, each a fixed engine cost.
   */
  async #writeAll(): Promise<void> {
    const batch = this.#filling;
    this.#filling = this.#spare;
    this.#spare = batch;
    const rows = batch.rows;
    try {
      await this.#options.insert({ count: rows, ...batch.batches() });
    } catch (error) {
      // Not retried: a failing INSERT would otherwise grow the buffer for ever. The shapes it
      // carried may not be stored: later rows must not name them.
      this.#ids.forget();
      this.#options.onDrop(rows);
      this.#options.log.warn('task history rows could not be written and were dropped', { rows, error: (error as Error).message });
    } finally {
      batch.clear();
    }
  }
}
