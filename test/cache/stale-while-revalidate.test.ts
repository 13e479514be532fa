import test from 'ava';
import type { QueryOutcome, QueryRequest } from '../../core/pipeline/types.js';
import { withRuntime } from '../helpers/runtime.js';
import { ask, cacheSetup, eventually, internalQueryGate, queryLogPlugin, sleep, testKeysPlugin } from './cache-helpers.js';

const QUERY = 'SELECT id, label FROM events ORDER BY id';
type Logged = Array<{ request: QueryRequest; outcome: QueryOutcome }>;
const internal = (log: Logged) => log.filter((entry) => entry.request.protocol === 'internal');

test('between item_ttl and item_ttl + swr the stale entry is served and one refresh runs, as the caller', async (t) => {
  const log: Logged = [];
  const gate = internalQueryGate();
  const setup = cacheSetup('caching:\n  sql_results:\n    item_ttl: 300ms\n    stale_while_revalidate_ttl: 10s', { plugins: [testKeysPlugin(), queryLogPlugin(log), gate] });
  await withRuntime(t, setup, async (context) => {
    const alice = { 'x-api-key': 'alice' };
    t.is((await ask(context, QUERY, { headers: alice })).cache, 'MISS');
    await sleep(400);
    const answers = await Promise.all(Array.from({ length: 6 }, () => ask(context, QUERY, { headers: alice })));
    t.deepEqual(answers.map((answer) => answer.cache), Array(6).fill('STALE'));
    t.is(answers[0]!.headers.get('cache-control'), 'private, max-age=0, stale-while-revalidate=10');
    t.deepEqual(answers[0]!.body, [{ id: 1, label: 'one' }, { id: 2, label: 'two' }]);
    t.is(internal(log).length, 0, 'the refresh is held at the gate until every stale answer is in');
    gate.release();
    await eventually(() => internal(log).length === 1 && setup.cachePlugin.caches().refresher!.runningCount === 0);
    await sleep(100);
    t.is(internal(log).length, 1, 'concurrent stale answers started a single refresh');
    t.is(internal(log)[0]!.request.principal.id, 'apikey:alice', 'the refresh ran as the caller');
    const metric = (name: string) => context.runtime.metrics.value(name);
    t.is(metric('results_cache_swr_background_query_count'), 1);
    t.is(metric('results_cache_stale_swr_count'), 5);
    const fresh = await ask(context, QUERY, { headers: alice });
    t.is(fresh.cache, 'HIT', 'the refresh stored a fresh result');
    t.is((await ask(context, QUERY, { headers: { 'x-api-key': 'bob' } })).cache, 'MISS', 'in alice\'s namespace only');
  });
});

test('after item_ttl + swr an entry is a miss; responses carry Cache-Control while SWR is on', async (t) => {
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 2s\n    stale_while_revalidate_ttl: 1s'), async (context) => {
    const first = await ask(context, QUERY);
    t.is(first.headers.get('cache-control'), 'max-age=2, stale-while-revalidate=1');
    const hit = await ask(context, QUERY);
    t.is(hit.cache, 'HIT');
    t.regex(hit.headers.get('cache-control')!, /^max-age=[12], stale-while-revalidate=1$/);
    await sleep(3_200);
    t.is((await ask(context, QUERY)).cache, 'MISS');
  });
});

test('with SWR, a dataset refresh leaves dependent entries stale (served while recomputed), a write evicts', async (t) => {
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 1m\n    stale_while_revalidate_ttl: 1m'), async (context) => {
    const orders = 'SELECT count(*) AS n FROM orders';
    t.is((await ask(context, orders)).cache, 'MISS');
    await context.runtime.engine.refresh('orders');
    t.is((await ask(context, orders)).cache, 'STALE', 'no latency cliff on refresh');
    await eventually(async () => (await ask(context, orders)).cache === 'HIT');
    t.is((await ask(context, QUERY)).cache, 'MISS');
    t.is((await ask(context, "INSERT INTO events VALUES (3, 'three')")).status, 200);
    const after = await ask(context, QUERY);
    t.is(after.cache, 'MISS', 'a writer reads its own write');
    t.is((after.body as unknown[]).length, 3);
  });
});

test('a custom-keyed stale entry is refreshed under its custom key', async (t) => {
  const log: Logged = [];
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 200ms\n    stale_while_revalidate_ttl: 10s', { plugins: [queryLogPlugin(log)] }), async (context) => {
    const keyed = { 'quarry-cache-key': 'events-tile' };
    t.is((await ask(context, QUERY, { headers: keyed })).cache, 'MISS');
    await sleep(300);
    t.is((await ask(context, QUERY, { headers: keyed })).cache, 'STALE');
    await eventually(() => internal(log).length === 1);
    await eventually(async () => (await ask(context, 'SELECT 42', { headers: keyed })).cache === 'HIT');
  });
});
