import test from 'ava';
import { MetricsRegistry } from '../../core/metrics/registry.js';

test('counters, histograms and gauges record per attribute set', (t) => {
  const metrics = new MetricsRegistry();
  const hits = metrics.counter('results_cache_hits', { description: 'cache hits' });
  hits.add(1, { protocol: 'http' });
  hits.add(2, { protocol: 'http' });
  hits.add(1, { protocol: 'flight' });
  const duration = metrics.histogram('query_duration_ms', { description: 'query duration', unit: 'ms' });
  duration.record(5);
  duration.record(15);
  let items = 7;
  metrics.gauge('results_cache_items_count', { description: 'items' }, () => [{ value: items }]);
  t.is(metrics.value('results_cache_hits', { protocol: 'http' }), 3);
  t.is(metrics.value('results_cache_hits', { protocol: 'flight' }), 1);
  t.is(metrics.value('results_cache_items_count'), 7);
  items = 9;
  t.is(metrics.value('results_cache_items_count'), 9, 'gauges are read when collected');
  const histogram = metrics.collect().find((metric) => metric.name === 'query_duration_ms')!;
  t.deepEqual(histogram.points, [{ attributes: {}, value: 20, count: 2, min: 5, max: 15 }]);
});

test('declaring a name twice returns the same instrument; another kind is refused', (t) => {
  const metrics = new MetricsRegistry();
  metrics.counter('x', { description: 'x' }).add(1);
  metrics.counter('x', { description: 'x' }).add(1);
  t.is(metrics.value('x'), 2);
  t.throws(() => metrics.histogram('x', { description: 'x' }), { message: 'metric x is already declared as a counter' });
});

test('subscribers see every recording', (t) => {
  const metrics = new MetricsRegistry();
  const seen: string[] = [];
  const stop = metrics.subscribe((name, kind, value) => seen.push(`${name}:${kind}:${value}`));
  metrics.counter('a', { description: 'a' }).add(2);
  stop();
  metrics.counter('a', { description: 'a' }).add(3);
  t.deepEqual(seen, ['a:counter:2']);
});
