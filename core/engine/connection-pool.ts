import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { settledWithin } from '../timing/settled-within.js';

/**
 * DuckDB connections for queries. One query holds one connection from prepare to the last
 * batch; idle connections are kept (up to `maxIdle`) because connecting costs more than
 * reusing. A connection that was interrupted is closed instead of reused.
 *
 * A connection is never closed while it is lent out: closing one while DuckDB still runs a
 * call on it destroys its client context from inside that call, which waits forever on the
 * context's own lock (DuckDB 1.5; the thread-pool thread never returns, so neither does the
 * query nor, at exit, the process). Busy connections are closed when they come back.
 */
export class ConnectionPool {
  readonly #instance: DuckDBInstance;
  readonly #idle: DuckDBConnection[] = [];
  readonly #maxIdle: number;
  readonly #busy = new Set<DuckDBConnection>();
  #closed = false;
  #interruptedAll = false;
  /** Wakes `close()` once the last busy connection came back. */
  #allReturned: (() => void) | undefined;
  readonly #initializers: Array<(connection: DuckDBConnection) => Promise<void>> = [];

  constructor(instance: DuckDBInstance, maxIdle = 8) {
    this.#instance = instance;
    this.#maxIdle = maxIdle;
  }

  /** Runs on every connection the pool opens from now on (per-connection UDFs); idle ones are dropped so all get it. */
  addInitializer(initializer: (connection: DuckDBConnection) => Promise<void>): void {
    this.#initializers.push(initializer);
    for (const connection of this.#idle.splice(0)) connection.closeSync();
  }

  async acquire(): Promise<DuckDBConnection> {
    if (this.#closed) throw new Error('connection pool is closed');
    const connection = this.#idle.pop() ?? (await this.#open());
    this.#busy.add(connection);
    return connection;
  }

  async #open(): Promise<DuckDBConnection> {
    const connection = await this.#instance.connect();
    for (const initializer of this.#initializers) await initializer(connection);
    return connection;
  }

  release(connection: DuckDBConnection, options: { discard?: boolean } = {}): void {
    if (!this.#busy.delete(connection)) return;
    if (this.#closed || options.discard || this.#idle.length >= this.#maxIdle) {
      connection.closeSync();
      if (this.#busy.size === 0) this.#allReturned?.();
      return;
    }
    this.#idle.push(connection);
  }

  /** Interrupts every running query (used when the shutdown timeout expires). */
  interruptAll(): void {
    this.#interruptedAll = true;
    for (const connection of this.#busy) connection.interrupt();
  }

  /** True once the pool interrupted the queries it lent out (shutdown): their INTERRUPT errors are cancellations. */
  get interruptedAll(): boolean {
    return this.#interruptedAll;
  }

  get busyCount(): number {
    return this.#busy.size;
  }

  /**
   * Stops lending: idle connections are closed now, busy ones interrupted and closed as their
   * queries give them back. Resolves once all came back, or after `waitMs`; a connection still
   * out then stays open (see the class comment) and goes with the process.
   */
  async close(waitMs: number): Promise<void> {
    this.#closed = true;
    for (const connection of this.#idle.splice(0)) connection.closeSync();
    if (this.#busy.size === 0) return;
    this.#interruptedAll = true;
    for (const connection of this.#busy) connection.interrupt();
    await settledWithin(new Promise<void>((resolve) => (this.#allReturned = resolve)), waitMs);
  }
}
