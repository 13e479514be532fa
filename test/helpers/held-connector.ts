import { Int32, Table, vectorFromArray, type RecordBatch } from 'apache-arrow';
import type { DatasetConnector, FetchSource } from '../../core/engine/sources/connector.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';

/**
 * A real connector plugin (scheme `held:`) for loads in progress: its first scan (the load's)
 * hands over one batch of 1,000 rows of an estimated 4,000, then waits for `release()`; every
 * later scan (a query reading the source live meanwhile) answers at once.
 */
const BATCH = new Table({ id: vectorFromArray(Array.from({ length: 1000 }, (_, index) => index), new Int32()) });

export class HeldScan {
  scans = 0;
  #release!: () => void;
  readonly released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });

  release(): void {
    this.#release();
  }

  source(): FetchSource {
    return {
      kind: 'fetch',
      schema: async () => BATCH.schema,
      estimateRows: async () => 4000,
      scan: () => {
        const first = ++this.scans === 1;
        const released = this.released;
        return (async function* (): AsyncIterable<RecordBatch> {
          yield* BATCH.batches;
          if (!first) return;
          await released;
          for (let repeat = 0; repeat < 3; repeat++) yield* BATCH.batches;
        })();
      },
    };
  }
}

export function heldPlugin(held: HeldScan): QuarryPlugin {
  const connector: DatasetConnector = { schemes: ['held'], resolve: () => held.source() };
  return { name: 'held-connector', apply: (runtime) => runtime.registerConnector(connector) };
}
