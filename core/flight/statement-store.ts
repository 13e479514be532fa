import { randomBytes } from 'node:crypto';
import type { Schema } from 'apache-arrow';
import { QuarryError } from '../errors/quarry-error.js';
import type { StatementKind } from '../pipeline/types.js';

/** A query GetFlightInfo accepted and DoGet will run (TicketStatementQuery.statement_handle). */
export interface PendingStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  readonly principalId: string;
}

/** A prepared statement (ActionCreatePreparedStatementResult.prepared_statement_handle). */
export interface PreparedStatement {
  readonly sql: string;
  readonly principalId: string;
  readonly kind: StatementKind;
  readonly parameterCount: number;
  readonly datasetSchema: Schema;
  readonly parameterSchema: Schema;
  /** Positional values bound by the last DoPut(CommandPreparedStatementQuery); empty until then. */
  parameters: readonly unknown[];
}

interface Entry<T> {
  value: T;
  expiresAt: number;
}

/**
 * Server-side handles with an idle expiry: statement tickets live `ticketTtlMs` after
 * GetFlightInfo, prepared statements `preparedTtlMs` after their last use (the Flight SQL
 * spec asks servers to reset the timeout on use). A handle only works for the principal
 * that created it, so a leaked ticket does not run someone else's query as them.
 */
export class StatementStore {
  readonly ticketTtlMs: number;
  readonly preparedTtlMs: number;
  readonly #pending = new Map<string, Entry<PendingStatement>>();
  readonly #prepared = new Map<string, Entry<PreparedStatement>>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #maxPerKind: number;

  constructor(options: { ticketTtlMs?: number; preparedTtlMs?: number; maxPerKind?: number } = {}) {
    this.ticketTtlMs = options.ticketTtlMs ?? 5 * 60_000;
    this.preparedTtlMs = options.preparedTtlMs ?? 10 * 60_000;
    this.#maxPerKind = options.maxPerKind ?? 10_000;
    this.#sweeper = setInterval(() => this.sweep(), 30_000);
    this.#sweeper.unref();
  }

  addPending(statement: PendingStatement): Uint8Array {
    return this.#add(this.#pending, statement, this.ticketTtlMs);
  }

  /** The statement behind a ticket; tickets may be redeemed again until they expire (clients retry DoGet). */
  pending(handle: Uint8Array, principalId: string): PendingStatement {
    return this.#get(this.#pending, handle, principalId, 'statement ticket', this.ticketTtlMs, false);
  }

  /** Forgets a statement ticket (after CancelFlightInfo). */
  dropPending(handle: Uint8Array): void {
    this.#pending.delete(Buffer.from(handle).toString('base64url'));
  }

  addPrepared(statement: PreparedStatement): Uint8Array {
    return this.#add(this.#prepared, statement, this.preparedTtlMs);
  }

  prepared(handle: Uint8Array, principalId: string): PreparedStatement {
    return this.#get(this.#prepared, handle, principalId, 'prepared statement', this.preparedTtlMs, true);
  }

  /** Closes a prepared statement; closing an unknown or expired handle is not an error (closing is idempotent). */
  closePrepared(handle: Uint8Array, principalId: string): void {
    const key = Buffer.from(handle).toString('base64url');
    const entry = this.#prepared.get(key);
    if (entry && entry.value.principalId === principalId) this.#prepared.delete(key);
  }

  get size(): { pending: number; prepared: number } {
    return { pending: this.#pending.size, prepared: this.#prepared.size };
  }

  sweep(now = Date.now()): void {
    for (const map of [this.#pending, this.#prepared] as Array<Map<string, Entry<unknown>>>) {
      for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key);
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
    this.#pending.clear();
    this.#prepared.clear();
  }

  #add<T>(map: Map<string, Entry<T>>, value: T, ttlMs: number): Uint8Array {
    if (map.size >= this.#maxPerKind) this.sweep();
    if (map.size >= this.#maxPerKind) {
      throw new QuarryError('FLIGHT_RATE_LIMITED', `too many open statement handles (${this.#maxPerKind}); close prepared statements you no longer use`, { details: { retryAfterSeconds: 10 } });
    }
    const handle = randomBytes(16);
    map.set(handle.toString('base64url'), { value, expiresAt: Date.now() + ttlMs });
    return new Uint8Array(handle);
  }

  #get<T extends { principalId: string }>(map: Map<string, Entry<T>>, handle: Uint8Array, principalId: string, what: string, ttlMs: number, touch: boolean): T {
    const key = Buffer.from(handle).toString('base64url');
    const entry = map.get(key);
    const now = Date.now();
    if (!entry || entry.expiresAt <= now || entry.value.principalId !== principalId) {
      if (entry && entry.expiresAt <= now) map.delete(key);
      throw new QuarryError('FLIGHT_HANDLE_NOT_FOUND', `unknown ${what} handle: it was closed, expired (after ${Math.round(ttlMs / 1000)} s unused) or belongs to another caller`);
    }
    if (touch) entry.expiresAt = now + ttlMs;
    return entry.value;
  }
}
