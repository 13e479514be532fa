import test from 'ava';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { eventually, startTelemetryRuntime, withTelemetryRuntime } from './helpers.js';
import { lastValue, pushedNames, startGrpcReceiver, startHttpReceiver } from './otlp-receivers.js';

test('OTLP/HTTP: pushes every interval with headers, resource attributes, the prefix and the allow-list', async (t) => {
  const receiver = await startHttpReceiver();
  const manifest = `${QUICKSTART_MANIFEST}runtime:
  telemetry:
    metric_prefix: quarry.
    properties:
      deployment.environment: test
    otel_exporter:
      endpoint: ${receiver.endpoint}
      push_interval: 150ms
      headers:
        x-collector-token: \${ secrets:OTLP_TOKEN }
      metrics:
        - quarry.query_executions
        - quarry_dataset_load_state
        - query_failures
`;
  try {
    await withTelemetryRuntime(t, { manifest, withQuickstartData: true, files: { '.env': 'OTLP_TOKEN=s3cret\n' } }, async ({ sql, logs }) => {
      await sql('SELECT count(*) FROM orders');
      await sql('SELECT count(*) FROM orders');
      await sql('SELECT nope');
      await eventually(() => lastValue(receiver.pushes, 'quarry.query_executions', { protocol: 'http', datasets: 'orders' }) === 2, 5_000, 'a push with both queries');
      const push = receiver.pushes.at(-1)!;
      t.is(push.headers['x-collector-token'], 's3cret', 'the header value came from the secret store');
      t.regex(push.contentType, /json/);
      t.like(push.export.resourceAttributes, { 'service.name': 'quarry', 'deployment.environment': 'test' });
      t.deepEqual([...pushedNames(receiver.pushes)].sort(), ['quarry.dataset_load_state', 'quarry.query_executions'], 'only the allow-list, matched in either spelling');
      t.is(lastValue(receiver.pushes, 'quarry.dataset_load_state', { dataset: 'orders' }), 1);
      t.true(
        logs.some((record) => record.level === 'warn' && /does not start with metric_prefix/.test(record.message) && record.fields?.['entry'] === 'query_failures'),
        'an entry without the prefix is reported at start-up',
      );
    });
  } finally {
    await receiver.close();
  }
});

test('OTLP/gRPC: a bare host:port pushes protobuf with lowercase metadata; the last values are pushed on shutdown', async (t) => {
  const receiver = await startGrpcReceiver();
  const manifest = `${QUICKSTART_MANIFEST}runtime:
  telemetry:
    properties:
      team: data
    otel_exporter:
      endpoint: ${receiver.endpoint}
      push_interval: 60s
      headers:
        Authorization: Bearer collector-key
`;
  try {
    const context = await startTelemetryRuntime({ manifest, withQuickstartData: true, flight: true });
    await context.flightClient().query('SELECT * FROM customers LIMIT 3');
    await context.sql('SELECT 1');
    t.is(receiver.pushes.length, 0, 'nothing before the interval');
    await context.runtime.stop();
    t.true(receiver.pushes.length >= 1, 'stopping pushed once more');
    const push = receiver.pushes.at(-1)!;
    t.is(push.headers['authorization'], 'Bearer collector-key');
    t.like(push.export.resourceAttributes, { 'service.name': 'quarry', team: 'data' });
    t.is(lastValue(receiver.pushes, 'query_executions', { protocol: 'flight', datasets: 'customers' }), 1);
    t.is(lastValue(receiver.pushes, 'query_duration_ms', { protocol: 'http' }), 1, 'histogram count');
    t.is(lastValue(receiver.pushes, 'flight_requests', { method: 'DoGet' }), 1);
    const executions = push.export.metrics.find((metric) => metric.name === 'query_executions');
    t.is(executions?.kind, 'sum');
  } finally {
    await receiver.close();
  }
});

test('nothing is pushed when the exporter or telemetry is off', async (t) => {
  const receiver = await startHttpReceiver();
  const exporter = (enabled: boolean) => `    otel_exporter:\n      enabled: ${enabled}\n      endpoint: ${receiver.endpoint}\n      push_interval: 50ms\n`;
  try {
    for (const telemetry of [`  telemetry:\n${exporter(false)}`, `  telemetry:\n    enabled: false\n${exporter(true)}`]) {
      await withTelemetryRuntime(t, { manifest: `datasets: []\nruntime:\n${telemetry}` }, async ({ sql }) => {
        await sql('SELECT 1');
        await new Promise((resolve) => setTimeout(resolve, 300));
      });
    }
    t.is(receiver.pushes.length, 0);
  } finally {
    await receiver.close();
  }
});

test('a collector that cannot be reached is reported once and does not hold up shutdown', async (t) => {
  const gone = await startHttpReceiver();
  await gone.close();
  const manifest = `datasets: []\nruntime:\n  telemetry:\n    otel_exporter:\n      endpoint: ${gone.endpoint}\n      push_interval: 100ms\n`;
  const context = await startTelemetryRuntime({ manifest });
  await context.sql('SELECT 1');
  const failures = () => context.logs.filter((record) => record.message.startsWith('pushing metrics failed'));
  await eventually(() => failures().length > 0, 5_000, 'the failure warning');
  await new Promise((resolve) => setTimeout(resolve, 350));
  t.is(failures().length, 1, 'logged when pushes start failing, not every interval');
  const started = Date.now();
  await context.runtime.stop();
  t.true(Date.now() - started < 6_000, 'the last push gives up within its timeout');
});
