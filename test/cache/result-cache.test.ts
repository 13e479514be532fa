import test from 'ava';
import { MetricsRegistry } from '../../core/metrics/registry.js';
import { createKeyHasher } from '../../plugins/results-cache/hashing.js';
import { registerCacheMetrics } from '../../plugins/results-cache/metrics.js';
import { ENTRY_OVERHEAD_BYTES, ResultCache, type ResultCacheOptions } from '../../plugins/results-cache/result-cache.js';

/** A cache on a clock the test moves, with its metrics on a fresh registry. */
async function cacheWith(options: Partial<ResultCacheOptions> = {}) {
  let now = 1_000_000;
  const registry = new MetricsRegistry();
  const holder: { cache?: ResultCache<string> } = {};
  const metrics = registerCacheMetrics(registry, 'embeddings', {
    get itemCount() {
      return holder.cache!.itemCount;
    },
    get bytes() {
      return holder.cache!.bytes;
    },
    get maxBytes() {
      return holder.cache!.maxBytes;
    },
  });
  const cache = new ResultCache<string>({
    maxBytes: 10_000,
    policy: 'lru',
    itemTtlMs: 1_000,
    hasher: await createKeyHasher('xxh3'),
    metrics,
    now: () => now,
    ...options,
  });
  holder.cache = cache;
  return { cache, registry, advance: (ms: number) => (now += ms) };
}

test('get: fresh until item_ttl, then gone; hits, misses and the gauges are recorded', async (t) => {
  const { cache, registry, advance } = await cacheWith();
  t.is(cache.get('a'), undefined);
  t.true(cache.set('a', 'value', { bytes: 100 }));
  advance(999);
  t.is(cache.get('a'), 'value');
  advance(1);
  t.is(cache.get('a'), undefined);
  const value = (name: string) => registry.value(name);
  t.is(value('embeddings_cache_requests'), 3);
  t.is(value('embeddings_cache_hits'), 1);
  t.is(value('embeddings_cache_misses'), 2);
  t.is(value('embeddings_cache_evictions'), 1, 'the expired entry counts as evicted');
  t.is(value('embeddings_cache_items_count'), 0);
  t.is(value('embeddings_cache_size_bytes'), 0);
  t.is(value('embeddings_cache_max_size_bytes'), 10_000);
  t.is(value('embeddings_cache_hit_ratio'), 1 / 3);
});

test('find: within the stale-while-revalidate window an entry is found with negative freshness', async (t) => {
  const { cache, advance } = await cacheWith({ staleWhileRevalidateMs: 2_000 });
  cache.set('a', 'value', { bytes: 10 });
  advance(1_500);
  const found = cache.find('a');
  t.is(found?.freshForMs, -500);
  t.is(found?.ageMs, 1_500);
  t.is(cache.get('a'), undefined, 'the plain read wants fresh values');
  advance(1_500);
  t.is(cache.find('a'), undefined, 'past item_ttl + swr it is gone');
  t.is(cache.itemCount, 0);
});

test('a hash collision is a miss, never another key\'s value', async (t) => {
  const { cache } = await cacheWith({ hasher: () => 'same-hash' });
  cache.set('first', 'one', { bytes: 10 });
  t.is(cache.get('second'), undefined);
  cache.set('second', 'two', { bytes: 10 });
  t.is(cache.get('second'), 'two');
  t.is(cache.get('first'), undefined);
});

test('invalidate evicts entries of the dataset and refuses values computed before the change', async (t) => {
  const { cache } = await cacheWith();
  cache.set('orders query', 'o', { bytes: 10, datasets: ['orders'] });
  cache.set('customers query', 'c', { bytes: 10, datasets: ['customers'] });
  const before = cache.generationsOf(['orders']);
  t.is(cache.invalidate(['orders']), 1);
  t.is(cache.get('orders query'), undefined);
  t.is(cache.get('customers query'), 'c');
  t.false(cache.set('orders query', 'computed before the change', { bytes: 10, datasets: ['orders'], generations: before }));
  t.is(cache.get('orders query'), undefined);
  t.true(cache.set('orders query', 'after', { bytes: 10, datasets: ['orders'], generations: cache.generationsOf(['orders']) }));
  t.is(cache.get('orders query'), 'after');
});

test('invalidate in stale mode keeps entries as stale when stale-while-revalidate is on', async (t) => {
  const { cache, advance } = await cacheWith({ staleWhileRevalidateMs: 5_000 });
  cache.set('q', 'v', { bytes: 10, datasets: ['orders'] });
  advance(100);
  t.is(cache.invalidate(['orders'], 'stale'), 1);
  t.is(cache.find('q')?.freshForMs, 0, 'expired now');
  advance(4_999);
  t.truthy(cache.find('q'));
  advance(1);
  t.is(cache.find('q'), undefined);
});

test('sweep drops expired entries nobody reads; max_size is counted in bytes held', async (t) => {
  const { cache, advance } = await cacheWith({ policy: 'tiny_lfu' });
  for (let index = 0; index < 5; index++) cache.set(`k${index}`, 'v', { bytes: 500 });
  // Each entry counts its value's bytes, its own memory and its key ('k0': two UTF-16 characters).
  t.is(cache.bytes, 5 * (500 + ENTRY_OVERHEAD_BYTES + 4));
  advance(1_000);
  t.is(cache.sweep(), 5);
  t.is(cache.bytes, 0);
  t.false(cache.set('too big', 'v', { bytes: 20_000 }));
});

test('entries count their own memory: values of no bytes cannot outnumber max_size in entries', async (t) => {
  const { cache } = await cacheWith({ policy: 'lru', maxBytes: 64 * 1024 });
  for (let index = 0; index < 1_000; index++) cache.set(`empty result ${index}`, '', { bytes: 0 });
  t.true(cache.itemCount <= (64 * 1024) / ENTRY_OVERHEAD_BYTES, `${cache.itemCount} entries held`);
  t.true(cache.itemCount > 0);
  t.true(cache.bytes <= 64 * 1024);
});
