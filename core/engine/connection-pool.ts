import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { settledWithin } from '../timing/settled-within.js';

/** How many idle connections the pool keeps, and for how long. */
export interface IdleLimits {
  /** Idle connections kept however long they wait (default 8). */
  readonly kept: number;
  /** Idle connections kept at most; beyond `kept`, only for `trimAfterMs` (default 64). */
  readonly max: number;
  /** How long an idle connection beyond `kept` waits before it is closed (default 30 s). */
  readonly trimAfterMs: number;
}

const DEFAULT_IDLE_LIMITS: IdleLimits = { kept: 8, max: 64, trimAfterMs: 30_000 };

/**
 * DuckDB connections for queries. One query holds one connection from prepare to the last
 * batch; idle connections are kept because connecting costs more than reusing: a new
 * connection runs every initializer (the plugins' functions) and has none of the statements
 * prepared on the old one. A connection that was interrupted is closed instead of reused.
 *
 * Up to `kept` idle connections stay for good; a burst of concurrent queries leaves up to
 * `max` more, closed once they were idle for `trimAfterMs`. Keeping only 8 made a steady 50
 * concurrent clients close and reopen ~42 connections per round of queries (`wrk -c50` on a
 * point query, interleaved runs: 442-502 requests/s, 618-736 with the burst's connections
 * kept; docs/performance.md).
 *
 * A connection is never closed while it is lent out: closing one while DuckDB still runs a
 * call on it destroys its client context from inside that call, which waits forever on the
 * context's own lock (DuckDB 1.5; the thread-pool thread never returns, so neither does the
 * query nor, at exit, the process). Busy connections are closed when they come back.
 */
export class ConnectionPool {
  readonly #instance: DuckDBInstance;
  /** Idle connections, the most recently used last (lent first: its statements are warm). */
  readonly #idle: DuckDBConnection[] = [];
  /** When each idle connection came back (same order as #idle). */
  readonly #idleSince: number[] = [];
  readonly #limits: IdleLimits;
  #trimTimer: NodeJS.Timeout | undefined;
  readonly #busy = new Set<DuckDBConnection>();
  #closed = false;
  #interruptedAll = false;
  /** Wakes `close()` once the last busy connection came back. */
  #allReturned: (() => void) | undefined;
  readonly #initializers: Array<(connection: DuckDBConnection) => Promise<void>> = [];

  constructor(instance: DuckDBInstance, limits: Partial<IdleLimits> = {}) {
    this.#instance = instance;
    this.#limits = { ...DEFAULT_IDLE_LIMITS, ...limits };
  }

  /** Runs on every connection the pool opens from now on (per-connection UDFs); idle ones are dropped so all get it. */
  addInitializer(initializer: (connection: DuckDBConnection) => Promise<void>): void {
    this.#initializers.push(initializer);
    this.#closeIdle(this.#idle.length);
  }

  async acquire(): Promise<DuckDBConnection> {
    if (this.#closed) throw new Error('connection pool is closed');
    this.#idleSince.pop();
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
    if (this.#closed || options.discard || this.#idle.length >= this.#limits.max) {
      connection.closeSync();
      if (this.#busy.size === 0) this.#allReturned?.();
      return;
    }
    this.#idle.push(connection);
    this.#idleSince.push(performance.now());
    if (this.#idle.length > this.#limits.kept) this.#scheduleTrim();
  }

  get idleCount(): number {
    return this.#idle.length;
  }

  #scheduleTrim(): void {
    if (this.#trimTimer !== undefined) return;
    this.#trimTimer = setTimeout(() => {
      this.#trimTimer = undefined;
      this.#trim();
    }, this.#limits.trimAfterMs);
    // An idle pool must not keep the process alive.
    this.#trimTimer.unref();
  }

  /** Closes the connections beyond `kept` that waited `trimAfterMs`: the longest idle are first in the list. */
  #trim(): void {
    const cutoff = performance.now() - this.#limits.trimAfterMs;
    let expired = 0;
    while (expired < this.#idle.length - this.#limits.kept && this.#idleSince[expired]! <= cutoff) expired++;
    this.#closeIdle(expired);
    if (this.#idle.length > this.#limits.kept) this.#scheduleTrim();
  }

  /** Closes the `count` idle connections that waited longest. */
  #closeIdle(count: number): void {
    this.#idleSince.splice(0, count);
    for (const connection of this.#idle.splice(0, count)) connection.closeSync();
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
    clearTimeout(this.#trimTimer);
    this.#closeIdle(this.#idle.length);
    if (this.#busy.size === 0) return;
    this.#interruptedAll = true;
    for (const connection of this.#busy) connection.interrupt();
    await settledWithin(new Promise<void>((resolve) => (this.#allReturned = resolve)), waitMs);
  }
}
