import test from 'ava';
import { eventually, parseSamples, sampleValue, withTelemetryRuntime } from './helpers.js';

test('dataset_load_state, dataset_active_count and dataset_load_errors per dataset', async (t) => {
  const manifest = `datasets:
  - from: file:data/orders.parquet
    name: orders
    acceleration:
      enabled: true
  - from: file:data/customers.csv
    name: customers
  - from: file:data/missing.parquet
    name: broken
    acceleration:
      enabled: true
`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true, metrics: true }, async ({ scrape }) => {
    const samples = parseSamples(await scrape());
    t.is(sampleValue(samples, 'dataset_load_state', { dataset: 'orders' }), 1);
    t.is(sampleValue(samples, 'dataset_load_state', { dataset: 'customers' }), 1);
    t.is(sampleValue(samples, 'dataset_load_state', { dataset: 'broken' }), 3);
    t.is(sampleValue(samples, 'dataset_active_count', { engine: 'duckdb' }), 1, 'broken is accelerated but not serving');
    t.is(sampleValue(samples, 'dataset_active_count', { engine: 'none' }), 1);
    t.is(sampleValue(samples, 'dataset_load_errors', { dataset: 'broken' }), 1);
    t.is(sampleValue(samples, 'dataset_load_errors', { dataset: 'orders' }), 0);
  });
});

test('the acceleration freshness metrics follow the time_column across load, write and refresh', async (t) => {
  const manifest = `datasets:
  - from: file:data/orders.parquet
    name: orders
    access: read_write
    time_column: ordered_at
    acceleration:
      enabled: true
runtime:
  metrics:
    - name: dataset_acceleration_max_timestamp_before_refresh_ms
    - name: dataset_acceleration_max_timestamp_after_refresh_ms
      enabled: true
    - name: dataset_acceleration_refresh_lag_ms
    - name: dataset_acceleration_ingestion_lag_ms
`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true, metrics: true }, async ({ runtime, sql, scrape, baseUrl }) => {
    const [row] = await runtime.engine.runInternal('SELECT epoch_ms(max(ordered_at)) AS newest FROM orders');
    const newest = Number(row!['newest']);
    const labels = { dataset: 'orders', mode: 'full' };
    const value = async (name: string) => sampleValue(parseSamples(await scrape()), name, labels);

    // First load: the maximum is known, there is no "before" yet.
    t.is(await eventually(() => value('dataset_acceleration_max_timestamp_after_refresh_ms'), 5_000, 'the first load'), newest);
    t.is(await value('dataset_acceleration_max_timestamp_before_refresh_ms'), undefined);
    t.is(await value('dataset_acceleration_refresh_lag_ms'), undefined);
    const lag = await value('dataset_acceleration_ingestion_lag_ms');
    t.true(lag !== undefined && lag >= Date.now() - newest - 60_000 && lag <= Date.now() - newest, 'ingestion lag = now - newest, at load time');

    // A write of a row one hour newer: after moves, before is the previous after.
    const inserted = await sql(`INSERT INTO orders (order_id, ordered_at) VALUES (999999, epoch_ms(${newest + 3_600_000}))`);
    t.is(inserted.status, 200, await inserted.text());
    t.is(await eventually(async () => ((await value('dataset_acceleration_refresh_lag_ms')) === 3_600_000 ? 3_600_000 : undefined), 5_000, 'the write'), 3_600_000);
    t.is(await value('dataset_acceleration_max_timestamp_before_refresh_ms'), newest);
    t.is(await value('dataset_acceleration_max_timestamp_after_refresh_ms'), newest + 3_600_000);

    // A refresh reloads the file: the maximum goes back.
    t.is((await fetch(`${baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' })).status, 201);
    t.is(await eventually(async () => ((await value('dataset_acceleration_refresh_lag_ms')) === -3_600_000 ? -3_600_000 : undefined), 5_000, 'the refresh'), -3_600_000);
    t.is(await value('dataset_acceleration_max_timestamp_after_refresh_ms'), newest);
  });
});

test('the acceleration metrics are not computed or exported unless enabled', async (t) => {
  const manifest = `datasets:
  - from: file:data/orders.parquet
    name: orders
    time_column: ordered_at
    acceleration:
      enabled: true
`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true, metrics: true }, async ({ runtime, scrape }) => {
    await runtime.engine.refresh('orders');
    await new Promise((resolve) => setTimeout(resolve, 600));
    t.false((await scrape()).includes('dataset_acceleration_'));
    t.is(runtime.metrics.snapshot('dataset_acceleration_max_timestamp_after_refresh_ms'), undefined, 'not even declared');
  });
});
