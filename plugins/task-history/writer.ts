import type { Logger } from '../../core/log.js';
import { approximateSize, type TaskRow } from './table.js';

export interface TaskWriterOptions {
  /** Writes one batch (one multi-row INSERT). */
  insert(rows: readonly TaskRow[]): Promise<void>;
  /** Called with how many rows were lost (buffer full, or an INSERT failed). */
  onDrop(count: number): void;
  log: Logger;
  /** Rows per INSERT (default 500). */
  batchRows?: number;
  /** Longest a row waits before it is written (default 100 ms). */
  flushIntervalMs?: number;
  /** Rows held at most while INSERTs are slower than queries arrive (default 10,000). */
  maxBufferedRows?: number;
  /** Bytes held at most, roughly (default 32 MiB). */
  maxBufferedBytes?: number;
}

/**
 * Buffers task rows and writes them in batches, so a flood of queries costs one INSERT per
 * ~100 ms or per 500 rows instead of one per query. One INSERT runs at a time; while it
 * runs, rows keep buffering up to a cap, and rows beyond the cap are dropped and counted:
 * task history must never hold the runtime's memory hostage.
 */
export class TaskWriter {
  readonly #options: Required<Omit<TaskWriterOptions, 'log'>> & { log: Logger };
  #buffer: TaskRow[] = [];
  #bufferedBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> | undefined;
  #stopped = false;

  constructor(options: TaskWriterOptions) {
    this.#options = { batchRows: 500, flushIntervalMs: 100, maxBufferedRows: 10_000, maxBufferedBytes: 32 * 1024 * 1024, ...options };
  }

  /** Queues a row; false when it was dropped (buffer full or writer stopped). */
  add(row: TaskRow): boolean {
    const size = approximateSize(row);
    if (this.#stopped || this.#buffer.length >= this.#options.maxBufferedRows || this.#bufferedBytes + size > this.#options.maxBufferedBytes) {
      this.#options.onDrop(1);
      return false;
    }
    this.#buffer.push(row);
    this.#bufferedBytes += size;
    if (this.#buffer.length >= this.#options.batchRows) this.#startWriting();
    else this.#schedule();
    return true;
  }

  get buffered(): number {
    return this.#buffer.length;
  }

  /** Writes everything buffered now (and waits for a write already running). */
  async flush(): Promise<void> {
    while (this.#writing || this.#buffer.length > 0) {
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
    if (this.#writing || this.#buffer.length === 0) return;
    this.#writing = this.#writeAll().finally(() => {
      this.#writing = undefined;
      // Rows that arrived during the last INSERT wait at most one more interval.
      if (this.#buffer.length > 0 && !this.#stopped) this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#startWriting(), this.#options.flushIntervalMs);
    // Shutdown flushes explicitly; a pending write must not keep the process alive.
    this.#timer.unref();
  }

  async #writeAll(): Promise<void> {
    while (this.#buffer.length > 0) {
      const batch = this.#buffer.splice(0, this.#options.batchRows);
      for (const row of batch) this.#bufferedBytes -= approximateSize(row);
      try {
        await this.#options.insert(batch);
      } catch (error) {
        // Not retried: a failing INSERT would otherwise grow the buffer for ever.
        this.#options.onDrop(batch.length);
        this.#options.log.warn('task history rows could not be written and were dropped', { rows: batch.length, error: (error as Error).message });
      }
    }
  }
}
