import test from 'ava';
import { Int32, Table, vectorFromArray, type RecordBatch } from 'apache-arrow';
import type { DatasetConnector } from '../../core/engine/sources/connector.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { startRuntime } from '../helpers/runtime.js';

/**
 * Lifecycle lines are written when the state changes: `runtime ready` when /v1/ready first
 * answers 200. With ready_state: on_registration that is before an accelerated dataset has
 * loaded (before, the line waited for every load); with on_load, once the loads are done. The
 * load waits on a gate the test opens: a real connector plugin whose scan blocks.
 */

const ROWS = new Table({ id: vectorFromArray([1, 2, 3], new Int32()) });

function gatedLoad(): { plugin: QuarryPlugin; open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const connector: DatasetConnector = {
    schemes: ['gated'],
    resolve: () => ({
      kind: 'fetch',
      schema: async () => ROWS.schema,
      scan: () => (async function* (): AsyncIterable<RecordBatch> {
        await gate;
        yield* ROWS.batches;
      })(),
    }),
  };
  return { plugin: { name: 'gated-load', apply: (runtime) => runtime.registerConnector(connector) }, open };
}

const manifest = (readyState: string) => `version: v2
datasets:
  - from: gated:numbers
    name: numbers
    acceleration:
      enabled: true
runtime:
  ready_state: ${readyState}
`;

for (const readyState of ['on_registration', 'on_load'] as const) {
  test(`ready_state ${readyState}: "runtime ready" is logged once, when /v1/ready first answers 200`, async (t) => {
    const { plugin, open } = gatedLoad();
    const context = await startRuntime({ manifest: manifest(readyState), bundle: [...defaultPlugins(), plugin], waitForLoad: false });
    t.teardown(() => context.runtime.stop());
    const lines = () => context.logs.map((record) => record.message);
    const ready = async () => (await fetch(`${context.baseUrl}/v1/ready`)).status === 200;
    if (readyState === 'on_registration') {
      t.true(await ready(), 'registered: ready while the load waits');
      t.true(lines().includes('runtime ready'), 'said when it became ready, not after the loads');
      t.false(lines().includes('datasets loaded'));
    } else {
      t.false(await ready(), 'not ready while the load waits');
      t.false(lines().includes('runtime ready'));
    }
    open();
    await context.runtime.whenLoaded();
    t.true(await ready());
    t.is(lines().filter((line) => line === 'runtime ready').length, 1, 'once');
    if (readyState === 'on_registration') t.true(lines().indexOf('datasets loaded') > lines().indexOf('runtime ready'), 'the loads are reported after');
  });
}
