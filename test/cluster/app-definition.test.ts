import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { appDefinitionYaml } from '../../plugins/scheduler/app-definition.js';

// What a scheduler sends executors: only what they use. The state store's section and the
// datasets schedulers read alone (not accelerated, so not partitioned) stay behind, with the
// secrets they name; secret references are passed as references, never resolved.

test('the app definition keeps partitioned datasets and secret references, drops runtime.scheduler and datasets executors never serve', async (t) => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-app-definition-'));
  try {
    const manifest = path.join(directory, 'quarry.yaml');
    writeFileSync(manifest, `version: v2
kind: Spicepod
name: shop
secrets:
  - from: env
    name: env
runtime:
  scheduler:
    state_location: s3://state/cluster/
    params:
      objstore_key: \${ secrets:STATE_KEY }
      objstore_secret: \${ secrets:STATE_SECRET }
datasets:
  - from: postgres:public.orders
    name: orders
    params:
      pg_pass: \${ secrets:ORDERS_PASS }
    acceleration:
      enabled: true
      partition_by: 'bucket(8, customer_id)'
  - from: postgres:public.customers
    name: customers
    params:
      pg_pass: \${ secrets:CUSTOMERS_PASS }
  - from: file:data/archive.parquet
    name: archive
    acceleration:
      enabled: false
`);
    const text = await appDefinitionYaml(manifest);
    const parsed = YAML.parse(text) as { runtime?: unknown; secrets: unknown[]; datasets: Array<{ name: string; params?: Record<string, string> }> };
    t.is(parsed.runtime, undefined, 'runtime.scheduler was the only runtime section: gone with it');
    t.deepEqual(parsed.datasets.map((dataset) => dataset.name), ['orders']);
    t.is(parsed.datasets[0]!.params!['pg_pass'], '${ secrets:ORDERS_PASS }', 'a secret the executor needs stays a reference');
    t.deepEqual(parsed.secrets, [{ from: 'env', name: 'env' }]);
    for (const absent of ['scheduler', 'state_location', 'STATE_KEY', 'STATE_SECRET', 'CUSTOMERS_PASS', 'customers', 'archive']) t.false(text.includes(absent), absent);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
