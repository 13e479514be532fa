import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DatasetRegistry } from '../../core/engine/datasets.js';
import { createLogger } from '../../core/log.js';
import { datasetSchema } from '../../core/manifest/sections/datasets.js';
import { withRuntime } from '../helpers/runtime.js';
import { ConnectorRegistry } from '../../core/engine/sources/connector-registry.js';
import { fileConnector } from '../../core/engine/sources/file-source.js';

/**
 * The registry's loads run through a stand-in connection that only counts how many loads
 * overlap (the engine itself is exercised end to end elsewhere); the files are real.
 */
/** Each load's final dataset states, for the assertions. */
const observedStates: string[][] = [];

async function maximumConcurrentLoads(parallelism: number | undefined): Promise<number> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-load-'));
  const configs = Array.from({ length: 6 }, (_, index) => {
    writeFileSync(path.join(directory, `d${index}.csv`), 'a\n1\n');
    return datasetSchema.parse({ from: `file:d${index}.csv`, name: `d${index}`, acceleration: { enabled: true } });
  });
  const connectors = new ConnectorRegistry();
  connectors.register(fileConnector, 'the core');
  const registry = new DatasetRegistry(configs, { baseDirectory: directory, log: createLogger({ sink: () => undefined }), connectors });
  await registry.register(async () => undefined);
  let running = 0;
  let maximum = 0;
  const connect = async () =>
    ({
      run: async (sql: string) => {
        if (!sql.startsWith('CREATE TABLE') && !sql.startsWith('CREATE OR REPLACE TABLE')) return;
        running += 1;
        maximum = Math.max(maximum, running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running -= 1;
      },
      closeSync: () => undefined,
    }) as unknown as DuckDBConnection;
  await registry.loadAccelerated(connect, parallelism);
  observedStates.push(registry.statuses().map((status) => status.state));
  return maximum;
}
test('runtime.dataset_load_parallelism bounds concurrent loads; unset loads all at once', async (t) => {
  t.is(await maximumConcurrentLoads(1), 1);
  t.is(await maximumConcurrentLoads(2), 2);
  t.is(await maximumConcurrentLoads(undefined), 6);
  for (const states of observedStates) t.deepEqual(states, Array(6).fill('ready'));
});

test('runtime.query settings reach the engine', async (t) => {
  const temp = mkdtempSync(path.join(os.tmpdir(), 'quarry-spill-'));
  const manifest = `datasets: []\nruntime:\n  query:\n    memory_limit: 1GiB\n    temp_directory: ${temp}\n`;
  await withRuntime(t, { manifest }, async ({ sql }) => {
    const response = await sql("SELECT current_setting('memory_limit') AS memory, current_setting('temp_directory') AS temp", { accept: 'application/json' });
    const [row] = (await response.json()) as Array<{ memory: string; temp: string }>;
    t.is(row!.memory, '1.0 GiB');
    t.is(row!.temp, temp);
  });
});

test('without runtime.query.memory_limit the engine gets 90% of the memory the process may use', async (t) => {
  const { defaultMemoryLimitBytes, availableMemoryBytes } = await import('../../core/engine/memory-limit.js');
  const available = availableMemoryBytes();
  t.is(defaultMemoryLimitBytes(), Math.floor(available.bytes * 0.9));
  t.true(['cgroup v2', 'cgroup v1', 'total memory'].includes(available.source));
  await withRuntime(t, { manifest: 'datasets: []\n' }, async ({ sql, logs }) => {
    t.is((await sql('SELECT 1')).status, 200);
    const started = logs.find((record) => record.message === 'engine started');
    t.truthy(started?.fields?.['memory_limit']);
  });
});
