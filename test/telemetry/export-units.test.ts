import test from 'ava';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { MetricsRegistry, type InstrumentDeclaration } from '../../core/metrics/registry.js';
import { RegistryBridge } from '../../plugins/telemetry/export/registry-bridge.js';
import { createPrometheusReader, renderPrometheusText } from '../../plugins/telemetry/export/prometheus-text.js';
import { parseSamples, sampleValue } from './helpers.js';

test('registry: onDeclare tells about existing and later instruments; snapshot reads one', (t) => {
  const registry = new MetricsRegistry();
  registry.counter('before', { description: 'b' }).add(2, { a: 'x' });
  const seen: InstrumentDeclaration[] = [];
  const stop = registry.onDeclare((declaration) => seen.push(declaration));
  registry.histogram('after_ms', { description: 'h', unit: 'ms', boundaries: [1, 2] });
  registry.counter('before', { description: 'b' });
  stop();
  registry.gauge('ignored', { description: 'g' }, () => []);
  t.deepEqual(seen.map((declaration) => `${declaration.name}:${declaration.kind}`), ['before:counter', 'after_ms:histogram'], 'a re-declaration is not announced twice');
  t.deepEqual(seen[1]!.options.boundaries, [1, 2]);
  t.deepEqual(registry.snapshot('before')?.points, [{ attributes: { a: 'x' }, value: 2 }]);
  t.is(registry.snapshot('missing'), undefined);
});

test('bridge and serializer: Spice names without _total, a counter named _total keeps it, disabled names are absent', async (t) => {
  const registry = new MetricsRegistry();
  const reader = createPrometheusReader();
  // exporter-prometheus brings its own copy of sdk-metrics (see telemetry-export.ts): same class, two declarations.
  const provider = new MeterProvider({ readers: [reader as never] });
  const bridge = new RegistryBridge(registry, provider.getMeter('test'), { exportedName: (name) => name, isEnabled: (name) => name !== 'switched_off' });
  registry.counter('query_executions', { description: 'q' }).add(3, { protocol: 'http' });
  registry.counter('runtime_tls_reload_total', { description: 'r' }).add(1, { result: 'ok' });
  registry.counter('switched_off', { description: 's' }).add(1);
  registry.upDownCounter('query_active_count', { description: 'a' }).add(2);
  const text = await renderPrometheusText(reader);
  t.regex(text, /^# TYPE query_executions counter$/m);
  t.regex(text, /^# HELP query_executions q$/m);
  t.regex(text, /^# TYPE runtime_tls_reload_total counter$/m);
  t.regex(text, /^# TYPE query_active_count gauge$/m);
  t.notRegex(text, /query_executions_total|runtime_tls_reload_total_total|switched_off/);
  const samples = parseSamples(text);
  t.is(sampleValue(samples, 'query_executions', { protocol: 'http' }), 3);
  t.is(sampleValue(samples, 'runtime_tls_reload_total', { result: 'ok' }), 1);
  t.is(sampleValue(samples, 'query_active_count'), 2);
  bridge.stop();
  await provider.shutdown();
});
