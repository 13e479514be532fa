import type { DuckDBConnection } from '@duckdb/node-api';
import { toQuarryError } from '../../errors/quarry-error.js';
import type { Logger } from '../../log.js';
import type { DatasetEntry } from '../dataset-entry.js';
import { DEFAULT_RETENTION_CHECK_INTERVAL_MS, retentionStatements } from './retention.js';

/**
 * The retention checks of accelerated datasets (acceleration.retention_*): one chain of
 * timers per dataset, each check `retention_check_interval` after the last, deleting the
 * expired rows from the accelerated table. A check is skipped while the dataset loads; a
 * failed one is logged and the next one tries again.
 */
export class RetentionChecks {
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #connect: () => Promise<DuckDBConnection>;
  readonly #log: Logger;
  readonly #onChanged: (dataset: string) => Promise<void>;
  #closed = false;

  constructor(options: { connect: () => Promise<DuckDBConnection>; log: Logger; onChanged: (dataset: string) => Promise<void> }) {
    this.#connect = options.connect;
    this.#log = options.log;
    this.#onChanged = options.onChanged;
  }

  /** Starts a dataset's chain (none when its retention is off or it already has one). */
  start(entry: DatasetEntry): void {
    const acceleration = entry.config.acceleration;
    const key = entry.config.name.toLowerCase();
    if (acceleration?.retention_check_enabled !== true || this.#closed || this.#timers.has(key)) return;
    const timer = setTimeout(() => {
      void this.check(entry).finally(() => {
        this.#timers.delete(key);
        this.start(entry);
      });
    }, acceleration.retention_check_interval ?? DEFAULT_RETENTION_CHECK_INTERVAL_MS);
    // A pending check never keeps the process alive.
    timer.unref();
    this.#timers.set(key, timer);
  }

  /** One check now: deletes the expired rows; answers how many. */
  async check(entry: DatasetEntry): Promise<number> {
    if (this.#closed || entry.refreshing || !entry.accelerationTable) return 0;
    let deleted = 0;
    try {
      const connection = await this.#connect();
      try {
        for (const statement of retentionStatements(entry.config, entry.accelerationTable.sql, new Date())) {
          deleted += Number((await connection.run(statement)).rowsChanged);
        }
      } finally {
        connection.closeSync();
      }
    } catch (error) {
      this.#log.warn('retention check failed; the rows stay until the next check', { dataset: entry.config.name, error: toQuarryError(error).message });
      return 0;
    }
    if (deleted > 0) {
      this.#log.info('retention deleted expired rows', { dataset: entry.config.name, rows: deleted });
      await this.#onChanged(entry.config.name);
    }
    return deleted;
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
