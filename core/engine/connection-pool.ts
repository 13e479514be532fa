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

  constructor(instance: DuckDBInstance, maxIdle = 8) {
    this.#instance = instance;
    this.#maxIdle = maxIdle;
  }

  async acquire(): Promise<DuckDBConnection> {
    if (this.#closed) throw new Error('connection pool is closed');
    const connection = this.#idle.pop() ?? (await this.#instance.connect());
    this.#busy.add(connection);
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
