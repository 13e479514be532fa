import { QuarryError } from '../errors/quarry-error.js';

/**
 * DoPut rate limit per caller (principal id), on when
 * `runtime.flight.do_put_rate_limit_enabled` (the default):
 *
 * - calls: a token bucket of 20 DoPut calls with 10 more per second. Writes are
 *   transactions in DuckDB and each takes a connection; a runaway loop of tiny uploads
 *   would starve queries.
 * - bytes: 256 MiB of upload with 128 MiB more per second. A single upload may exceed what
 *   is left (we never cut an upload in the middle: that would lose accepted rows); the
 *   caller's next DoPut then waits until the debt is paid back.
 *
 * A refused call gets RESOURCE_EXHAUSTED with the seconds to wait in `retry-after`
 * trailing metadata and in the message.
 */
export interface DoPutRateLimits {
  readonly callsPerSecond: number;
  readonly callBurst: number;
  readonly bytesPerSecond: number;
  readonly byteBurst: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_DO_PUT_RATE_LIMITS: DoPutRateLimits = Object.freeze({
  callsPerSecond: 10,
  callBurst: 20,
  bytesPerSecond: 128 * MiB,
  byteBurst: 256 * MiB,
});

class TokenBucket {
  #tokens: number;
  #updatedAt: number;
  readonly #capacity: number;
  readonly #perMs: number;

  constructor(capacity: number, perSecond: number, now: number) {
    this.#capacity = capacity;
    this.#tokens = capacity;
    this.#perMs = perSecond / 1000;
    this.#updatedAt = now;
  }

  #refill(now: number): void {
    this.#tokens = Math.min(this.#capacity, this.#tokens + (now - this.#updatedAt) * this.#perMs);
    this.#updatedAt = now;
  }

  /** Milliseconds until `amount` tokens are there (0: there now). */
  waitFor(amount: number, now: number): number {
    this.#refill(now);
    return this.#tokens >= amount ? 0 : (amount - this.#tokens) / this.#perMs;
  }

  take(amount: number, now: number): void {
    this.#refill(now);
    this.#tokens -= amount;
  }

  full(now: number): boolean {
    this.#refill(now);
    return this.#tokens >= this.#capacity;
  }
}

export class DoPutRateLimiter {
  readonly #limits: DoPutRateLimits;
  readonly #callers = new Map<string, { calls: TokenBucket; bytes: TokenBucket }>();
  readonly #now: () => number;

  constructor(limits: DoPutRateLimits = DEFAULT_DO_PUT_RATE_LIMITS, now: () => number = Date.now) {
    this.#limits = limits;
    this.#now = now;
  }

  /** Takes one call token, or throws FLIGHT_RATE_LIMITED saying when to retry. */
  admit(principalId: string): void {
    const now = this.#now();
    const caller = this.#caller(principalId, now);
    const waitMs = Math.max(caller.calls.waitFor(1, now), caller.bytes.waitFor(0, now));
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw new QuarryError(
        'FLIGHT_RATE_LIMITED',
        `DoPut rate limit reached for this caller (${this.#limits.callsPerSecond} calls/s, burst ${this.#limits.callBurst}; ${this.#limits.bytesPerSecond / MiB} MiB/s, burst ${this.#limits.byteBurst / MiB} MiB): retry in ${seconds} s`,
        { details: { retryAfterSeconds: seconds } },
      );
    }
    caller.calls.take(1, now);
  }

  /** Counts uploaded bytes against the caller's budget (may run into debt, see above). */
  meter(principalId: string, bytes: number): void {
    const now = this.#now();
    this.#caller(principalId, now).bytes.take(bytes, now);
  }

  #caller(principalId: string, now: number): { calls: TokenBucket; bytes: TokenBucket } {
    let caller = this.#callers.get(principalId);
    if (!caller) {
      if (this.#callers.size > 10_000) this.#forgetIdle(now);
      caller = {
        calls: new TokenBucket(this.#limits.callBurst, this.#limits.callsPerSecond, now),
        bytes: new TokenBucket(this.#limits.byteBurst, this.#limits.bytesPerSecond, now),
      };
      this.#callers.set(principalId, caller);
    }
    return caller;
  }

  #forgetIdle(now: number): void {
    for (const [id, caller] of this.#callers) if (caller.calls.full(now) && caller.bytes.full(now)) this.#callers.delete(id);
  }
}
