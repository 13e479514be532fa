import test from 'ava';
import { ENTRY_OVERHEAD_BYTES } from '../../plugins/results-cache/result-cache.js';
import { withRuntime } from '../helpers/runtime.js';
import { ask, cacheSetup } from './cache-helpers.js';

const ALL_ORDERS = 'SELECT * FROM orders ORDER BY 1';

async function heldBytes(encoding: 'none' | 'zstd', t: Parameters<typeof withRuntime>[0]): Promise<{ bytes: number; body: unknown }> {
  let result = { bytes: 0, body: undefined as unknown };
  // A long item_ttl: with the default 1 s, a busy machine can expire the entry between the hit
  // and the read of the size metric (seen once: 0 bytes held).
  await withRuntime(t, cacheSetup(`caching:\n  sql_results:\n    encoding: ${encoding}\n    item_ttl: 10m`), async (context) => {
    const miss = await ask(context, ALL_ORDERS);
    const hit = await ask(context, ALL_ORDERS);
    t.is(miss.cache, 'MISS');
    t.is(hit.cache, 'HIT');
    t.deepEqual(hit.body, miss.body, `${encoding}: a hit answers the same rows`);
    result = { bytes: context.runtime.metrics.value('results_cache_size_bytes')!, body: hit.body };
  });
  return result;
}

test('encoding zstd holds the compressed Arrow IPC bytes, and max_size counts them', async (t) => {
  const plain = await heldBytes('none', t);
  const compressed = await heldBytes('zstd', t);
  t.log(`5,000 orders: ${plain.bytes} bytes of Arrow held with none, ${compressed.bytes} with zstd`);
  t.true(plain.bytes > 400_000, 'none holds the result\'s Arrow buffers');
  t.true(compressed.bytes < plain.bytes / 3, 'zstd holds far fewer bytes');
  t.deepEqual(compressed.body, plain.body);
});

for (const policy of ['lru', 'tiny_lfu']) {
  test(`max_size bounds the bytes held (${policy}); a result larger than the cache is not kept`, async (t) => {
    // A long item_ttl: evictions must come from the size bound, not from entries expiring (a
    // slow machine's 80 queries outlive the default 1 s; a fast one's did not, and 40 one-row
    // answers of ~100 bytes never filled 16 KiB). 40 answers of 20 rows each do.
    await withRuntime(t, cacheSetup(`caching:\n  sql_results:\n    max_size: 16KiB\n    item_ttl: 10m\n    eviction_policy: ${policy}`), async (context) => {
      t.is((await ask(context, ALL_ORDERS)).cache, 'MISS');
      t.is((await ask(context, ALL_ORDERS)).cache, 'MISS', 'too large to keep');
      for (let round = 0; round < 2; round++) {
        for (let id = 1; id <= 40; id++) await ask(context, `SELECT * FROM orders WHERE order_id BETWEEN ${id * 20} AND ${id * 20 + 19}`);
      }
      const metric = (name: string) => context.runtime.metrics.value(name)!;
      t.true(metric('results_cache_size_bytes') <= 16 * 1024);
      t.true(metric('results_cache_items_count') > 0);
      t.true(metric('results_cache_evictions') > 0);
      t.is(metric('results_cache_max_size_bytes'), 16 * 1024);
    });
  });
}

test('empty answers count the memory their entries hold: one-off queries cannot hold more entries than max_size has room for', async (t) => {
  // Before entries counted their own memory, each empty answer counted one byte: 16 KiB "held" 16,384 of them (~30 MiB).
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    max_size: 16KiB\n    item_ttl: 10m'), async (context) => {
    for (let id = 0; id < 60; id++) t.is((await ask(context, `SELECT * FROM orders WHERE order_id = ${1_000_000 + id}`)).status, 200);
    const metric = (name: string) => context.runtime.metrics.value(name)!;
    t.true(metric('results_cache_items_count') > 0);
    t.true(metric('results_cache_items_count') <= 16, `${metric('results_cache_items_count')} entries in 16 KiB`);
    t.true(metric('results_cache_size_bytes') <= 16 * 1024);
    t.true(metric('results_cache_evictions') > 0);
  });
});

for (const algorithm of ['xxh3', 'ahash', 'siphash', 'blake3', 'xxh32', 'xxh64', 'xxh128']) {
  test(`hashing_algorithm ${algorithm} keys the sql_results cache (named in the start-up log)`, async (t) => {
    await withRuntime(t, cacheSetup(`caching:\n  sql_results:\n    hashing_algorithm: ${algorithm}`), async (context) => {
      t.is((await ask(context, 'SELECT 1 AS one')).cache, 'MISS');
      t.is((await ask(context, 'SELECT 1 AS one')).cache, 'HIT');
      t.is((await ask(context, 'SELECT 2 AS two')).cache, 'MISS');
      const started = context.logs.find((line) => line.message === 'sql_results cache on');
      t.is(started?.fields?.['hashing_algorithm'], algorithm);
      if (algorithm === 'ahash') t.regex(String(started?.fields?.['hashing']), /^ahash equivalent: XXH3-64 keyed with a random per-process/);
    });
  });
}

test('search_results and embeddings are caches of the same type with their own metrics', async (t) => {
  const setup = cacheSetup('caching:\n  search_results:\n    max_size: 1MiB\n    eviction_policy: tiny_lfu\n    hashing_algorithm: blake3\n  embeddings:\n    item_ttl: 1h');
  await withRuntime(t, setup, async (context) => {
    const { searchResults, embeddings } = setup.cachePlugin.caches();
    t.is(searchResults?.policy, 'tiny_lfu');
    t.is(searchResults?.maxBytes, 1024 * 1024);
    t.is(embeddings?.itemTtlMs, 3_600_000);
    t.is(embeddings!.get('model\u0000hello'), undefined);
    t.true(embeddings!.set('model\u0000hello', [0.1, 0.2], { bytes: 16 }));
    t.deepEqual(embeddings!.get('model\u0000hello'), [0.1, 0.2]);
    searchResults!.set('query', ['doc'], { bytes: 100, datasets: ['orders'] });
    // The value's 100 bytes, the entry's own memory and its key ('query', UTF-16).
    t.is(context.runtime.metrics.value('search_results_cache_size_bytes'), 100 + ENTRY_OVERHEAD_BYTES + 10);
    await context.runtime.hooks.cache.invalidate.promise({ datasets: ['orders'], reason: 'refresh' });
    t.is(searchResults!.itemCount, 0, 'a refresh of a dataset drops the search results that read it');
    const metric = (name: string) => context.runtime.metrics.value(name);
    t.is(metric('embeddings_cache_requests'), 2);
    t.is(metric('embeddings_cache_hits'), 1);
    t.is(metric('embeddings_cache_items_count'), 1);
    t.is(metric('search_results_cache_max_size_bytes'), 1024 * 1024);
    t.is(metric('search_results_cache_size_bytes'), 0);
    for (const prefix of ['results', 'search_results', 'embeddings']) {
      for (const suffix of ['requests', 'hits', 'misses', 'items_count', 'size_bytes', 'max_size_bytes', 'evictions', 'hit_ratio']) {
        t.truthy(context.runtime.metrics.snapshot(`${prefix}_cache_${suffix}`), `${prefix}_cache_${suffix}`);
      }
    }
  });
});
