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

test('bound series record into the same series as unbound calls, appear with their first value, and reach subscribers', (t) => {
  const metrics = new MetricsRegistry();
  const seen: Array<[string, number, object]> = [];
  metrics.subscribe((name, _kind, value, attributes) => seen.push([name, value, attributes]));
  const requests = metrics.counter('http_requests', { description: 'requests' });
  const bound = requests.bind({ route: '/v1/sql', status: '200' });
  t.is(metrics.snapshot('http_requests')!.points.length, 0, 'binding alone creates no series');
  bound.add(1);
  bound.add(1);
  requests.add(3, { status: '200', route: '/v1/sql' });
  t.is(metrics.value('http_requests', { route: '/v1/sql', status: '200' }), 5, 'attribute order does not matter');
  const duration = metrics.histogram('query_duration_ms', { description: 'duration' });
  const http = duration.bind({ protocol: 'http' });
  http.record(4);
  duration.record(10, { protocol: 'http' });
  http.record(1);
  t.deepEqual(metrics.snapshot('query_duration_ms')!.points, [{ attributes: { protocol: 'http' }, value: 15, count: 3, min: 1, max: 10 }]);
  t.deepEqual(seen.map(([name, value]) => [name, value]), [['http_requests', 1], ['http_requests', 1], ['http_requests', 3], ['query_duration_ms', 4], ['query_duration_ms', 10], ['query_duration_ms', 1]]);
  t.deepEqual(seen[0]![2], { route: '/v1/sql', status: '200' });
});
