import test from 'ava';
import { load } from './helpers.js';

type SqlResults = { enabled: boolean; max_size: number; item_ttl: number; eviction_policy: string; cache_key_type: string };
const sqlResults = (runtime: Record<string, unknown>) => (runtime.caching as { sql_results: SqlResults }).sql_results;

test('results_cache alone is applied as caching.sql_results, with a deprecation warning', async (t) => {
  const { manifest, warnings } = await load('runtime:\n  results_cache:\n    enabled: false\n    cache_max_size: 64MiB\n    item_ttl: 5m\n    eviction_policy: tiny_lfu\n');
  const sql = sqlResults(manifest.runtime);
  t.false(sql.enabled);
  t.is(sql.max_size, 64 * 1024 * 1024);
  t.is(sql.item_ttl, 300_000);
  t.is(sql.eviction_policy, 'tiny_lfu');
  t.is(sql.cache_key_type, 'plan', 'fields results_cache leaves out keep the sql_results defaults');
  t.false('results_cache' in manifest.runtime, 'one place to read downstream');
  t.deepEqual(warnings, [
    'runtime.results_cache is deprecated: its settings are applied as runtime.caching.sql_results; move them there (cache_max_size is now max_size)',
  ]);
});

test('results_cache also applies when caching is set without sql_results', async (t) => {
  const { manifest } = await load('runtime:\n  caching:\n    embeddings:\n      enabled: false\n  results_cache:\n    max_size: 1MiB\n');
  t.is(sqlResults(manifest.runtime).max_size, 1024 * 1024);
});

test('results_cache is ignored, with a warning, when caching.sql_results is set', async (t) => {
  const { manifest, warnings } = await load('runtime:\n  caching:\n    sql_results:\n      item_ttl: 2s\n  results_cache:\n    enabled: false\n    item_ttl: 9s\n');
  const sql = sqlResults(manifest.runtime);
  t.true(sql.enabled);
  t.is(sql.item_ttl, 2000);
  t.deepEqual(warnings, ['runtime.results_cache is deprecated and ignored because runtime.caching.sql_results is set; remove runtime.results_cache']);
});

test('codehost_max_concurrent_connections is mapped onto source_rate_control with a warning', async (t) => {
  const { manifest, warnings } = await load('runtime:\n  params:\n    codehost_max_concurrent_connections: "4"\n');
  t.is((manifest.runtime.source_rate_control as { codehost_concurrent_connections_limit: number }).codehost_concurrent_connections_limit, 4);
  t.deepEqual(warnings, [
    'runtime.params.codehost_max_concurrent_connections is deprecated: its value 4 is applied as runtime.source_rate_control.codehost_concurrent_connections_limit; set that instead',
  ]);
});

test('codehost_max_concurrent_connections is ignored when the new key is set', async (t) => {
  const { manifest, warnings } = await load(
    'runtime:\n  params:\n    codehost_max_concurrent_connections: 4\n  source_rate_control:\n    codehost_concurrent_connections_limit: 20\n',
  );
  t.is((manifest.runtime.source_rate_control as { codehost_concurrent_connections_limit: number }).codehost_concurrent_connections_limit, 20);
  t.deepEqual(warnings, [
    'runtime.params.codehost_max_concurrent_connections is deprecated and ignored because runtime.source_rate_control.codehost_concurrent_connections_limit is set; remove runtime.params.codehost_max_concurrent_connections',
  ]);
});

test('a disabled plugin maps nothing and says its section has no effect', async (t) => {
  const { manifest, warnings, disabledPlugins } = await load('plugins:\n  - name: results-cache\n    enabled: false\nruntime:\n  results_cache:\n    enabled: false\n');
  t.deepEqual(disabledPlugins, ['results-cache']);
  t.is(manifest.runtime.caching, undefined, 'a disabled plugin is not loaded, so its section gets no defaults');
  t.deepEqual(warnings, ['runtime.results_cache is configured but has no effect: the plugin "results-cache" is disabled in plugins:']);
});
