import { sleep } from '../../core/outbound/retry-timing.js';

/**
 * At most `limit` permits in any rolling `windowMs` (not per calendar second: a burst at the
 * end of one second cannot be followed by another at the start of the next). Waiters are
 * served in arrival order.
 */
export class SlidingWindowLimiter {
  readonly #limit: number;
  readonly #windowMs: number;
  /** Grant times, oldest first; a ring of `limit` entries. */
  readonly #grants: number[];
  #oldest = 0;
  #count = 0;
  #queue: Promise<void> = Promise.resolve();

  constructor(limit: number, windowMs: number) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#grants = new Array<number>(limit).fill(0);
  }

  acquire(signal: AbortSignal): Promise<void> {
    const turn = this.#queue.then(async () => {
      for (;;) {
        if (signal.aborted) throw signal.reason;
        const now = performance.now();
        while (this.#count > 0 && this.#grants[this.#oldest]! <= now - this.#windowMs) {
          this.#oldest = (this.#oldest + 1) % this.#limit;
          this.#count--;
        }
        if (this.#count < this.#limit) {
          this.#grants[(this.#oldest + this.#count) % this.#limit] = now;
          this.#count++;
          return;
        }
        await sleep(Math.max(1, this.#grants[this.#oldest]! + this.#windowMs - now), signal);
      }
    });
    this.#queue = turn.catch(() => undefined);
    return turn;
  }
}
