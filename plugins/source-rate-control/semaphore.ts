/** A counting semaphore with FIFO waiters that leave the queue when their signal aborts. */
export class Semaphore {
  readonly #limit: number;
  #held = 0;
  readonly #waiters: Array<{ grant: () => void }> = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get held(): number {
    return this.#held;
  }

  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#held < this.#limit) {
      this.#held++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.#held++;
          resolve();
        },
      };
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  release(): void {
    this.#held--;
    const next = this.#waiters.shift();
    next?.grant();
  }
}
