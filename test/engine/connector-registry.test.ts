import test from 'ava';
import { ConnectorRegistry, splitFrom } from '../../core/engine/sources/connector-registry.js';
import { fileConnector } from '../../core/engine/sources/file-source.js';
import { datasetSchema } from '../../core/manifest/sections/datasets.js';
import { createLogger } from '../../core/log.js';
import { withRuntime } from '../helpers/runtime.js';

const log = createLogger({ sink: () => undefined });

test('splitFrom: the scheme is lower-cased and the rest kept as written', (t) => {
  t.deepEqual(splitFrom('Postgres:public.Orders'), { scheme: 'postgres', location: 'public.Orders' });
  t.deepEqual(splitFrom('s3://bucket/prefix/'), { scheme: 's3', location: '//bucket/prefix/' });
  t.is(splitFrom('orders.parquet'), undefined);
});

test('an unknown scheme names itself and the schemes served', async (t) => {
  const registry = new ConnectorRegistry();
  registry.register(fileConnector, 'the core');
  const config = datasetSchema.parse({ from: 'mysql:shop.orders', name: 'orders' });
  const error = await t.throwsAsync(registry.resolve(config, { baseDirectory: '/tmp', log }));
  t.is((error as { code?: string }).code, 'DATASET_SOURCE_UNSUPPORTED');
  t.regex(error!.message, /no connector serves "mysql:".*served here: file:/);
});

test('two connectors for one scheme are refused, naming both owners', (t) => {
  const registry = new ConnectorRegistry();
  registry.register(fileConnector, 'the core');
  const error = t.throws(() => registry.register({ schemes: ['FILE'], resolve: fileConnector.resolve }, 'plugin "x"'));
  t.is((error as { code?: string }).code, 'CONNECTOR_CONFLICT');
  t.regex(error!.message, /plugin "x" registered a connector for "file:", which the core already serves/);
});

test('a dataset with an unserved scheme is in error in /v1/datasets; the others load', async (t) => {
  const manifest = ['version: v2', 'kind: Spicepod', 'name: t', 'datasets:', '  - from: file:a.csv', '    name: a', '  - from: nosuch:thing', '    name: b'].join('\n');
  await withRuntime(t, { manifest, files: { 'a.csv': 'x\n1\n' } }, async ({ baseUrl }) => {
    const datasets = (await (await fetch(`${baseUrl}/v1/datasets`)).json()) as Array<{ name: string; status: string; error?: string }>;
    t.is(datasets.find((dataset) => dataset.name === 'a')?.status, 'Ready');
    const failed = datasets.find((dataset) => dataset.name === 'b');
    t.is(failed?.status, 'Error');
    t.regex(failed?.error ?? '', /no connector serves "nosuch:"/);
  });
});
