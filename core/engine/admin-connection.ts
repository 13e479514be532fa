import type { DuckDBConnection } from '@duckdb/node-api';
import { settledWithin } from '../timing/settled-within.js';

/**
 * The engine's own connection (settings, dataset registration, also in the background after
 * start-up). Its calls are tracked so that closing never happens under a running one (see
 * ConnectionPool: DuckDB would wait on that call's lock forever).
 */
export class AdminConnection {
  readonly #connection: DuckDBConnection;
  readonly #running = new Set<Promise<void>>();

  constructor(connection: DuckDBConnection) {
    this.#connection = connection;
  }

  run(sql: string): Promise<void> {
    const call = this.#connection.run(sql).then(() => undefined);
    const tracked = call.catch(() => undefined).finally(() => this.#running.delete(tracked));
    this.#running.add(tracked);
    return call;
  }

  /** Interrupts running calls and closes once they returned, waiting at most `waitMs`; false when one still runs (left open). */
  async close(waitMs: number): Promise<boolean> {
    if (this.#running.size > 0) {
      this.#connection.interrupt();
      if (!(await settledWithin(Promise.all(this.#running), waitMs))) return false;
    }
    this.#connection.closeSync();
    return true;
  }
}
