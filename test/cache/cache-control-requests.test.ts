import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';
import { ask, cacheSetup, sleep } from './cache-helpers.js';

const QUERY = 'SELECT id, label FROM events ORDER BY id';

test('no-cache skips the lookup but stores the fresh result (BYPASS), which later requests hit', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    t.is((await ask(context, QUERY)).cache, 'MISS');
    const bypass = await ask(context, QUERY, { headers: { 'cache-control': 'no-cache' } });
    t.is(bypass.cache, 'BYPASS');
    t.is(bypass.headers.get('results-cache-status'), 'BYPASS');
    t.is((await ask(context, QUERY)).cache, 'HIT');
    t.is(context.runtime.metrics.value('results_cache_requests'), 2, 'a skipped lookup is not a cache request');
  });
});

test('no-store: answered from the cache when it can be, never stored', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'no-store' } })).cache, 'BYPASS');
    t.is((await ask(context, QUERY)).cache, 'MISS', 'nothing was stored');
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'no-store' } })).cache, 'HIT');
  });
});

test('only-if-cached: a miss is a 504 and runs nothing; a hit is served', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    const miss = await ask(context, QUERY, { headers: { 'cache-control': 'only-if-cached' } });
    t.is(miss.status, 504);
    t.is(miss.cache, 'MISS');
    t.deepEqual(miss.body, {
      error: {
        code: 'CACHE_ONLY_IF_CACHED_MISS',
        message: 'Cache-Control: only-if-cached, and no entry is cached for this query: the query was not run (send it without only-if-cached to run it)',
      },
    });
    t.is((await ask(context, QUERY)).cache, 'MISS', 'the 504 stored nothing');
    const hit = await ask(context, QUERY, { headers: { 'cache-control': 'only-if-cached' } });
    t.is(hit.status, 200);
    t.is(hit.cache, 'HIT');
  });
});

test('min-fresh and max-age refuse entries that are not fresh enough; the query then runs', async (t) => {
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 10s'), async (context) => {
    t.is((await ask(context, QUERY)).cache, 'MISS');
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'min-fresh=5' } })).cache, 'HIT', '~10 s of freshness left');
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'min-fresh=11' } })).cache, 'MISS');
    await sleep(1_100);
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'max-age=1' } })).cache, 'MISS', 'the stored entry is over a second old');
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'max-age=60' } })).cache, 'HIT');
  });
});

test('max-stale accepts an expired entry still held (bounded by its value); bad values are a 400', async (t) => {
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 200ms\n    stale_while_revalidate_ttl: 10s'), async (context) => {
    t.is((await ask(context, QUERY)).cache, 'MISS');
    await sleep(1_300);
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'min-fresh=0' } })).cache, 'MISS', 'min-fresh alone wants a fresh entry');
    await sleep(1_300);
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'max-stale=0' } })).cache, 'MISS', 'over a second stale');
    await sleep(1_300);
    t.is((await ask(context, QUERY, { headers: { 'cache-control': 'max-stale' } })).cache, 'STALE');
    const bad = await ask(context, QUERY, { headers: { 'cache-control': 'max-stale=later' } });
    t.is(bad.status, 400);
    t.is((bad.body as { error: { code: string } }).error.code, 'CACHE_CONTROL_INVALID');
  });
});

test('entries expire after item_ttl', async (t) => {
  // A TTL well above one request's time on a loaded CI machine, so the second ask is surely fresh.
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 1500ms'), async (context) => {
    t.is((await ask(context, QUERY)).cache, 'MISS');
    t.is((await ask(context, QUERY)).cache, 'HIT');
    await sleep(1_700);
    t.is((await ask(context, QUERY)).cache, 'MISS');
    t.is(context.runtime.metrics.value('results_cache_evictions'), 1);
  });
});
