import test from 'ava';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { familyNames, parseSamples, sampleValue, withTelemetryRuntime } from './helpers.js';

test('after known HTTP and Flight traffic, /metrics shows exact counts with their labels', async (t) => {
  await withTelemetryRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, metrics: true, flight: true }, async ({ sql, flightClient, scrape }) => {
    for (let i = 0; i < 3; i += 1) t.is((await sql('SELECT count(*) FROM orders')).status, 200);
    t.is((await sql('SELECT nope FROM orders')).status, 400);
    t.is((await sql("SELECT 'x'")).status, 200);
    const client = flightClient();
    await client.query('SELECT * FROM customers LIMIT 7');
    await client.query('SELECT 2');

    const samples = parseSamples(await scrape());
    t.is(sampleValue(samples, 'query_executions', { protocol: 'http', datasets: 'orders' }), 3);
    t.is(sampleValue(samples, 'query_executions', { protocol: 'http', datasets: '' }), 2, 'the failed query and SELECT \'x\'');
    t.is(sampleValue(samples, 'query_executions', { protocol: 'flight', datasets: 'customers' }), 1);
    t.is(sampleValue(samples, 'query_executions', { protocol: 'flight', datasets: '' }), 1);
    t.is(sampleValue(samples, 'query_failures', { protocol: 'http', err_code: 'SQL_INVALID' }), 1);
    t.is(sampleValue(samples, 'query_failures', { protocol: 'flight', err_code: 'SQL_INVALID' }), undefined);
    t.is(sampleValue(samples, 'query_active_count', { protocol: 'http' }), 0);
    t.is(sampleValue(samples, 'query_active_count', { protocol: 'flight' }), 0);
    t.is(sampleValue(samples, 'query_duration_ms_count', { protocol: 'http' }), 5);
    t.is(sampleValue(samples, 'query_execution_duration_ms_count', { protocol: 'flight' }), 2);
    t.is(sampleValue(samples, 'query_returned_rows_count', { protocol: 'flight' }), 2);
    t.is(sampleValue(samples, 'query_returned_rows_sum', { protocol: 'flight' }), 8, '7 customers and one row of SELECT 2');
    t.is(sampleValue(samples, 'query_returned_rows_bucket', { protocol: 'flight', le: '1' }), 1);
    t.is(sampleValue(samples, 'http_requests', { method: 'POST', path: '/v1/sql', status: '200' }), 4);
    t.is(sampleValue(samples, 'http_requests', { method: 'POST', path: '/v1/sql', status: '400' }), 1);
    t.is(sampleValue(samples, 'http_requests_duration_ms_count', { method: 'POST', path: '/v1/sql', status: '200' }), 4);
    t.is(sampleValue(samples, 'flight_requests', { method: 'GetFlightInfo' }), 2);
    t.is(sampleValue(samples, 'flight_requests', { method: 'DoGet' }), 2);
  });
});

test('HTTP requests are labelled with the route template, never the raw URL', async (t) => {
  await withTelemetryRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, metrics: true }, async ({ baseUrl, scrape }) => {
    await fetch(`${baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' });
    await fetch(`${baseUrl}/no/such/path?secret=1`);
    await fetch(`${baseUrl}/health`);
    const samples = parseSamples(await scrape());
    t.is(sampleValue(samples, 'http_requests', { method: 'POST', path: '/v1/datasets/:name/acceleration/refresh', status: '201' }), 1);
    t.is(sampleValue(samples, 'http_requests', { method: 'GET', path: 'unmatched', status: '404' }), 1);
    t.is(sampleValue(samples, 'http_requests', { method: 'GET', path: '/health', status: '200' }), 1);
    t.false(samples.some((sample) => Object.values(sample.labels).some((value) => value.includes('secret'))));
  });
});

test('the listener answers /health with OK, refuses other paths and methods, and needs no API key', async (t) => {
  const manifest = `${QUICKSTART_MANIFEST}runtime:\n  auth:\n    api-key:\n      keys: [secret-key]\n`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true, metrics: true }, async ({ metricsUrl, sql }) => {
    t.is((await sql('SELECT 1')).status, 401, 'the HTTP API wants a key');
    const health = await fetch(`${metricsUrl}/health`);
    t.is(health.status, 200);
    t.is(await health.text(), 'OK');
    const metrics = await fetch(`${metricsUrl}/metrics`);
    t.is(metrics.status, 200, '/metrics is not behind API keys');
    t.regex(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    t.regex(await metrics.text(), /^http_requests\{method="POST",path="\/v1\/sql",status="401"\} 1$/m);
    t.is((await fetch(`${metricsUrl}/v1/sql`)).status, 404);
    t.is((await fetch(`${metricsUrl}/metrics`, { method: 'POST' })).status, 405);
  });
});

test('the listener is listed in /v1/status and closed on shutdown', async (t) => {
  let metricsUrl = '';
  await withTelemetryRuntime(t, { manifest: 'datasets: []\n', metrics: true }, async (context) => {
    metricsUrl = context.metricsUrl;
    const status = (await (await fetch(`${context.baseUrl}/v1/status`)).json()) as Array<{ name: string; endpoint: string; status: string }>;
    t.deepEqual(status.find((listener) => listener.name === 'metrics'), { name: 'metrics', endpoint: metricsUrl.replace('http://', ''), status: 'Ready' });
    t.true(context.logs.some((record) => record.message === 'Metrics listening'));
  });
  await t.throwsAsync(fetch(`${metricsUrl}/health`), undefined, 'nothing listens after stop');
});

test('without --metrics there is no listener and /v1/status says Disabled', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\n' }, async ({ baseUrl, metricsUrl }) => {
    t.is(metricsUrl, '');
    const status = (await (await fetch(`${baseUrl}/v1/status`)).json()) as Array<{ name: string; status: string }>;
    t.is(status.find((listener) => listener.name === 'metrics')?.status, 'Disabled');
  });
});

test('metric_prefix renames every metric; runtime.metrics turns metrics off; default-off metrics stay off', async (t) => {
  const manifest = `${QUICKSTART_MANIFEST}runtime:
  telemetry:
    metric_prefix: quarry
  metrics:
    - name: http_requests
      enabled: false
    - name: query_failures
      enabled: false
`;
  await withTelemetryRuntime(t, { manifest, withQuickstartData: true, metrics: true }, async ({ runtime, sql, scrape }) => {
    await sql('SELECT 1');
    await sql('SELECT nope');
    runtime.metrics.counter('some_plugin_events', { description: 'a plugin\'s own metric' }).add(1);
    const names = familyNames(await scrape());
    t.true(names.includes('quarry_query_executions'));
    t.true(names.includes('quarry_dataset_load_state'));
    t.true(names.includes('quarry_some_plugin_events'), 'other plugins\' metrics get the prefix too');
    t.deepEqual(names.filter((name) => !name.startsWith('quarry_')), ['target_info'], 'every metric but target_info is prefixed');
    t.false(names.includes('quarry_http_requests'));
    t.true(names.includes('quarry_http_requests_duration_ms'), 'only the named metric is off');
    t.false(names.includes('quarry_query_failures'));
    t.false(names.some((name) => name.includes('dataset_acceleration_')), 'the acceleration metrics are off by default');
  });
});

test('properties, OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES become target_info labels; properties win', async (t) => {
  process.env['OTEL_SERVICE_NAME'] = 'from-env';
  process.env['OTEL_RESOURCE_ATTRIBUTES'] = 'deployment.environment=staging,team=data%20platform';
  const manifest = 'datasets: []\nruntime:\n  telemetry:\n    properties:\n      deployment.environment: production\n      region: eu-west-1\n';
  try {
    await withTelemetryRuntime(t, { manifest, metrics: true }, async ({ scrape }) => {
      const info = parseSamples(await scrape()).find((sample) => sample.name === 'target_info');
      t.deepEqual(info?.labels, { service_name: 'from-env', deployment_environment: 'production', team: 'data platform', region: 'eu-west-1' });
    });
  } finally {
    delete process.env['OTEL_SERVICE_NAME'];
    delete process.env['OTEL_RESOURCE_ATTRIBUTES'];
  }
});

test('instruments other plugins declare after start-up are exported too', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\n', metrics: true }, async ({ runtime, scrape }) => {
    runtime.metrics.counter('late_plugin_events', { description: 'declared after start' }).add(4, { kind: 'x' });
    let size = 11;
    runtime.metrics.gauge('late_plugin_size_bytes', { description: 'a gauge', unit: 'By' }, () => [{ value: size }]);
    runtime.metrics.histogram('late_plugin_latency_ms', { description: 'a histogram', unit: 'ms', boundaries: [1, 2] }).record(1.5);
    let samples = parseSamples(await scrape());
    t.is(sampleValue(samples, 'late_plugin_events', { kind: 'x' }), 4);
    t.is(sampleValue(samples, 'late_plugin_size_bytes'), 11);
    t.is(sampleValue(samples, 'late_plugin_latency_ms_bucket', { le: '2' }), 1);
    t.is(sampleValue(samples, 'late_plugin_latency_ms_bucket', { le: '1' }), 0);
    size = 12;
    samples = parseSamples(await scrape());
    t.is(sampleValue(samples, 'late_plugin_size_bytes'), 12, 'gauges are read at scrape time');
  });
});

test('runtime.telemetry.enabled: false keeps /health and exports nothing on /metrics', async (t) => {
  await withTelemetryRuntime(t, { manifest: 'datasets: []\nruntime:\n  telemetry:\n    enabled: false\n', metrics: true }, async ({ metricsUrl, scrape, sql, logs }) => {
    await sql('SELECT 1');
    t.is(await (await fetch(`${metricsUrl}/health`)).text(), 'OK');
    const text = await scrape();
    t.deepEqual(parseSamples(text), []);
    t.regex(text, /^# telemetry is disabled/);
    t.true(logs.some((record) => record.level === 'warn' && /runtime\.telemetry\.enabled is false/.test(record.message)));
  });
});
