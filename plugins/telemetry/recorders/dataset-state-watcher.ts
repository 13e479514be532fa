import type { DatasetState, DatasetStatus } from '../../../core/engine/engine-api.js';

export type DatasetTransition = (dataset: DatasetStatus, from: DatasetState | undefined) => void;

/**
 * Notices dataset state changes by comparing `engine.datasets()` every `intervalMs`. The
 * engine has no load/refresh-finished hook yet, so this is how load errors and first loads
 * are seen; a state held for less than one interval can be missed (a refresh that fails
 * keeps the previous data and stays `ready`, so it is never seen here).
 */
export class DatasetStateWatcher {
  readonly #datasets: () => DatasetStatus[];
  readonly #onChange: DatasetTransition;
  readonly #states = new Map<string, DatasetState>();
  #timer: NodeJS.Timeout | undefined;

  constructor(datasets: () => DatasetStatus[], onChange: DatasetTransition) {
    this.#datasets = datasets;
    this.#onChange = onChange;
  }

  start(intervalMs: number): void {
    this.check();
    this.#timer = setInterval(() => this.check(), intervalMs);
    // Observation only: it must never keep the process alive.
    this.#timer.unref();
  }

  /** Compares now; also called before each scrape so a scrape never shows a stale counter. */
  check(): void {
    for (const dataset of this.#datasets()) {
      const previous = this.#states.get(dataset.name);
      if (previous === dataset.state) continue;
      this.#states.set(dataset.name, dataset.state);
      this.#onChange(dataset, previous);
    }
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
