import test from 'ava';
import { Engine } from '../../core/engine/engine.js';
import { withRuntime } from '../helpers/runtime.js';
import { ask, cacheSetup } from './cache-helpers.js';

const GROUPED = 'SELECT status, count(*) AS orders FROM orders GROUP BY status ORDER BY status';

test('a repeated query is a MISS then a HIT, with the same rows and Spice\'s headers', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    const first = await ask(context, GROUPED);
    t.is(first.status, 200);
    t.is(first.cache, 'MISS');
    t.is(first.headers.get('results-cache-status'), 'MISS');
    t.is(first.headers.get('results-cache-scope'), 'shared');
    t.is(first.headers.get('vary'), null, 'no auth: one shared namespace');
    t.is(first.headers.get('cache-control'), null, 'no Cache-Control while stale-while-revalidate is off');
    const second = await ask(context, GROUPED);
    t.is(second.cache, 'HIT');
    t.is(second.headers.get('results-cache-status'), 'HIT');
    t.deepEqual(second.body, first.body);
    const metric = (name: string) => context.runtime.metrics.value(name);
    t.is(metric('results_cache_requests'), 2);
    t.is(metric('results_cache_hits'), 1);
    t.is(metric('results_cache_misses'), 1);
    t.is(metric('results_cache_items_count'), 1);
    t.is(metric('results_cache_hit_ratio'), 0.5);
    t.true(metric('results_cache_size_bytes')! > 0);
    t.is(metric('results_cache_max_size_bytes'), 128 * 1024 * 1024);
  });
});

test('cache_key_type plan: whitespace, keyword case and qualified names share one entry', async (t) => {
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    cache_key_type: plan'), async (context) => {
    t.is((await ask(context, GROUPED)).cache, 'MISS');
    t.is((await ask(context, 'select status, COUNT(*) as orders\n  from main.ORDERS   group by status order by status')).cache, 'HIT');
    t.is((await ask(context, 'SELECT status, count(*) AS orders FROM orders GROUP BY status ORDER BY status DESC')).cache, 'MISS', 'another plan');
  });
});

test.serial('plan keys: only a text whose constants another text wrote is planned, beside its prepare; repeated texts, writes and sql keys start none', async (t) => {
  // Counts the engine's stand-alone plans (Engine.logicalPlan, on a connection of its own).
  const planned: string[] = [];
  const original = Engine.prototype.logicalPlan;
  Engine.prototype.logicalPlan = function (this: Engine, sql: string) {
    planned.push(sql);
    return original.call(this, sql);
  };
  try {
    await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    cache_key_type: plan'), async (context) => {
      t.is(typeof context.runtime.pipeline.planAhead, 'function', 'the results cache asked for plans ahead');
      // New constants each time: no other text can share the plan, none is made.
      for (const id of [1, 2, 3]) t.is((await ask(context, `SELECT * FROM orders WHERE order_id = ${id}`)).cache, 'MISS');
      t.is((await ask(context, GROUPED)).cache, 'MISS');
      t.is((await ask(context, GROUPED)).cache, 'HIT');
      t.deepEqual(planned, [], 'no plan for a first text or a repeated one');
      // Another text writing the same constants (none): it is planned, and the first text once, to find its entry.
      t.is((await ask(context, `${GROUPED} -- a new text`)).cache, 'HIT', 'the plans match: the first text\'s entry answers');
      t.deepEqual([...planned].sort(), [GROUPED, `${GROUPED} -- a new text`]);
      t.is((await ask(context, 'select * from ORDERS where order_id = 2')).cache, 'HIT', 'a respelling of a first text with constants finds it too');
      t.is(planned.length, 4);
      await ask(context, "INSERT INTO events VALUES (99, 'written')");
      t.is(planned.length, 4, 'no plan started for a write');
    });
    planned.length = 0;
    await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    cache_key_type: sql'), async (context) => {
      t.is(context.runtime.pipeline.planAhead, undefined);
      await ask(context, GROUPED);
      await ask(context, `${GROUPED} -- a new text`);
      t.deepEqual(planned, [], 'sql keys need no plan');
    });
  } finally {
    Engine.prototype.logicalPlan = original;
  }
});

test('cache_key_type sql: only the exact text hits', async (t) => {
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    cache_key_type: sql'), async (context) => {
    t.is((await ask(context, GROUPED)).cache, 'MISS');
    t.is((await ask(context, GROUPED)).cache, 'HIT');
    t.is((await ask(context, GROUPED.toLowerCase())).cache, 'MISS');
  });
});

for (const keyType of ['plan', 'sql']) {
  test(`parameters are part of the key (${keyType})`, async (t) => {
    await withRuntime(t, cacheSetup(`caching:\n  sql_results:\n    cache_key_type: ${keyType}`), async (context) => {
      const byId = 'SELECT label FROM events WHERE id = $1';
      const one = await ask(context, byId, { parameters: [1] });
      t.is(one.cache, 'MISS');
      t.deepEqual(one.body, [{ label: 'one' }]);
      const two = await ask(context, byId, { parameters: [2] });
      t.is(two.cache, 'MISS');
      t.deepEqual(two.body, [{ label: 'two' }]);
      const again = await ask(context, byId, { parameters: [1] });
      t.is(again.cache, 'HIT');
      t.deepEqual(again.body, [{ label: 'one' }]);
      t.is((await ask(context, byId, { parameters: ['1'] })).cache, 'MISS', 'a string parameter is another key than a number');
    });
  });
}

test('Quarry-Cache-Key (or Spice-Cache-Key) names the entry whatever the SQL; Vary says so', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    const first = await ask(context, 'SELECT 1 AS answer', { headers: { 'quarry-cache-key': 'dashboard_tile-7' } });
    t.is(first.cache, 'MISS');
    t.is(first.headers.get('vary'), 'Quarry-Cache-Key, Spice-Cache-Key');
    const other = await ask(context, 'SELECT 2 AS answer', { headers: { 'spice-cache-key': 'dashboard_tile-7' } });
    t.is(other.cache, 'HIT');
    t.deepEqual(other.body, [{ answer: 1 }], 'by design: the key names the result');
    t.is((await ask(context, 'SELECT 1 AS answer')).cache, 'MISS', 'without the header the SQL is the key');
  });
});

test('an invalid custom key is a 400 with a clear message', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    const spaces = await ask(context, 'SELECT 1', { headers: { 'quarry-cache-key': 'not allowed!' } });
    t.is(spaces.status, 400);
    t.deepEqual(spaces.body, {
      error: { code: 'CACHE_KEY_INVALID', message: 'the quarry-cache-key header must be 1 to 128 characters of A-Z, a-z, 0-9, "_" and "-"; got "not allowed!"' },
    });
    const long = await ask(context, 'SELECT 1', { headers: { 'spice-cache-key': 'k'.repeat(129) } });
    t.is(long.status, 400);
    t.regex((long.body as { error: { message: string } }).error.message, /spice-cache-key header .* \(129 characters\)$/);
    t.is((await ask(context, 'SELECT 1', { headers: { 'quarry-cache-key': 'k'.repeat(128) } })).status, 200);
  });
});

test('system tables (the runtime schema, catalog views, duckdb_* functions) are never cached', async (t) => {
  await withRuntime(t, cacheSetup(''), async (context) => {
    await context.runtime.engine.runInternal('CREATE SCHEMA IF NOT EXISTS runtime');
    await context.runtime.engine.runInternal('CREATE TABLE runtime.task_history (id BIGINT)');
    for (const sql of ['SELECT count(*) AS n FROM runtime.task_history', 'SELECT count(*) AS n FROM "runtime"."task_history"', 'SELECT count(*) AS n FROM information_schema.tables', 'SELECT count(*) AS n FROM duckdb_tables()']) {
      const first = await ask(context, sql);
      t.is(first.status, 200, sql);
      await context.runtime.engine.runInternal('INSERT INTO runtime.task_history VALUES (1)');
      const second = await ask(context, sql);
      t.is(second.cache, 'BYPASS', sql);
      t.is(second.headers.get('results-cache-status'), null, `${sql}: the cache did not look at it`);
    }
    const rows = await ask(context, 'SELECT count(*) AS n FROM runtime.task_history');
    t.deepEqual(rows.body, [{ n: 4 }], 'every read sees the latest rows');
    t.is(context.runtime.metrics.value('results_cache_requests'), 0);
  });
});

test('a cache switched off answers BYPASS and registers no metrics', async (t) => {
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    enabled: false'), async (context) => {
    t.is((await ask(context, 'SELECT 1')).cache, 'BYPASS');
    t.is((await ask(context, 'SELECT 1')).cache, 'BYPASS');
    t.is(context.runtime.metrics.snapshot('results_cache_requests'), undefined);
    t.truthy(context.logs.find((line) => line.message === 'sql_results cache off (runtime.caching.sql_results.enabled: false)'));
  });
});

test('deprecated runtime.results_cache configures sql_results (cache_max_size is max_size)', async (t) => {
  await withRuntime(t, cacheSetup('results_cache:\n  enabled: true\n  cache_max_size: 1MiB\n  item_ttl: 30s\n  cache_key_type: sql'), async (context) => {
    t.is(context.runtime.metrics.value('results_cache_max_size_bytes'), 1024 * 1024);
    const started = context.logs.find((line) => line.message === 'sql_results cache on');
    t.like(started?.fields, { max_size: 1024 * 1024, item_ttl_ms: 30_000, cache_key_type: 'sql' });
    t.truthy(context.logs.find((line) => line.level === 'warn' && /runtime\.results_cache is deprecated/.test(line.message)));
    t.is((await ask(context, 'SELECT 1')).cache, 'MISS');
    t.is((await ask(context, 'SELECT 1')).cache, 'HIT');
  });
});
