/**
 * At most `limit` loads at once (runtime.dataset_load_parallelism), shared by the loads at
 * start-up and those of datasets registered later; unlimited when `limit` is undefined.
 */
export class LoadSlots {
  readonly #limit: number;
  readonly #waiting: Array<() => void> = [];
  #taken = 0;

  constructor(limit: number | undefined) {
    this.#limit = limit ?? Number.POSITIVE_INFINITY;
  }

  /** Runs `work` once a slot is free; the slot is given back when it settles. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#taken >= this.#limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#taken += 1;
    try {
      return await work();
    } finally {
      // A waiter takes the slot over; otherwise it is free.
      const next = this.#waiting.shift();
      if (next) next();
      else this.#taken -= 1;
    }
  }
}
