import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * DuckDB connections for queries. One query holds one connection from prepare to the last
 * batch; idle connections are kept (up to `maxIdle`) because connecting costs more than
 * reusing. A connection that was interrupted is closed instead of reused.
 */
export class ConnectionPool {
  readonly #instance: DuckDBInstance;
  readonly #idle: DuckDBConnection[] = [];
  readonly #maxIdle: number;
  readonly #busy = new Set<DuckDBConnection>();
  #closed = false;
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
      return;
    }
    this.#idle.push(connection);
  }

  /** Interrupts every running query (used when the shutdown timeout expires). */
  interruptAll(): void {
    for (const connection of this.#busy) connection.interrupt();
  }

  get busyCount(): number {
    return this.#busy.size;
  }

  close(): void {
    this.#closed = true;
    for (const connection of this.#idle.splice(0)) connection.closeSync();
    for (const connection of this.#busy) {
      connection.interrupt();
      connection.closeSync();
    }
    this.#busy.clear();
  }
}
