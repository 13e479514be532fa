import type { Logger } from '../../core/log.js';
import type { AssignmentLimits, DiscoveredDataset } from './assignment.js';
import { runAssignmentRound, type RoundResult } from './assignment-round.js';
import type { ClusterState } from './cluster-state.js';
import type { PartitionedDataset } from './cluster-config.js';
import { discoverPartitions, type DistinctQuery } from './partition-discovery.js';

export interface AssignmentLoopOptions {
  readonly state: ClusterState;
  readonly datasets: readonly PartitionedDataset[];
  readonly limits: AssignmentLimits;
  readonly intervalMs: number;
  readonly discoveryTimeoutMs: number;
  /** Runs the discovery query of a dataset (on the scheduler's engine). */
  readonly query: DistinctQuery;
  /** Whether a dataset can be read for discovery now (loaded); skipped this round otherwise. */
  readonly readable: (dataset: string) => boolean;
  /** The SQL table discovery reads for a dataset. */
  readonly discoveryTable: (dataset: PartitionedDataset) => string;
  readonly log: Logger;
  readonly onRound?: (result: RoundResult) => void;
}

/**
 * A scheduler's assignment rounds: one at once, every `intervalMs` (the first at start). A
 * round that fails (a store outage, eight lost races) is logged and the next one tries again;
 * a dataset whose discovery fails is left as it is for that round.
 */
export class AssignmentLoop {
  readonly #options: AssignmentLoopOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<RoundResult | undefined> | undefined;
  #last: RoundResult | undefined;
  #stopped = false;

  constructor(options: AssignmentLoopOptions) {
    this.#options = options;
  }

  get last(): RoundResult | undefined {
    return this.#last;
  }

  start(): void {
    const tick = () => {
      if (this.#stopped) return;
      void this.runOnce().finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(tick, this.#options.intervalMs).unref();
      });
    };
    tick();
  }

  /** Runs a round now (or joins the one running). */
  runOnce(): Promise<RoundResult | undefined> {
    this.#running ??= this.#round().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  async #round(): Promise<RoundResult | undefined> {
    const { log } = this.#options;
    const discovered: DiscoveredDataset[] = [];
    for (const dataset of this.#options.datasets) {
      if (!this.#options.readable(dataset.name)) continue;
      try {
        const partitions = await discoverPartitions(dataset.name, this.#options.discoveryTable(dataset), dataset.keys, this.#options.query, this.#options.discoveryTimeoutMs);
        discovered.push({ name: dataset.name, partitionBy: dataset.partitionBy, partitions });
      } catch (error) {
        log.warn('partition discovery failed; the dataset keeps its partitions this round', { dataset: dataset.name, error: (error as Error).message });
      }
    }
    try {
      const result = await runAssignmentRound(this.#options.state, discovered, this.#options.limits);
      this.#last = result;
      if (result.assigned.length > 0 || result.released > 0) {
        log.info('partitions assigned', { assigned: result.assigned.length, released: result.released, unassigned: result.unassigned, live_executors: result.liveExecutors.length, revision: result.document.revision });
      } else if (result.unassigned > 0) {
        log.debug('partitions wait for an executor', { unassigned: result.unassigned, live_executors: result.liveExecutors.length });
      }
      this.#options.onRound?.(result);
      return result;
    } catch (error) {
      log.warn('partition assignment round failed; the next round tries again', { error: (error as Error).message });
      return undefined;
    }
  }
}
