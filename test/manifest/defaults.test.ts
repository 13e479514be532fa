import test from 'ava';
import path from 'node:path';
import { load } from './helpers.js';

const MIB = 1024 * 1024;
const cacheDefaults = { enabled: true, max_size: 128 * MIB, eviction_policy: 'lru', item_ttl: 1000, hashing_algorithm: 'xxh3' };

/** Every default of the spec, in milliseconds and bytes; sections with required fields or meaningful absence stay absent. */
const EMPTY_RUNTIME = {
  shutdown_timeout: 30_000,
  ready_state: 'on_load',
  output_level: 'info',
  query: { spill_compression: 'zstd', max_sql_length: 1024 * 1024, max_value_size: 64 * 1024 * 1024 },
  params: {},
  flight: { do_put_rate_limit_enabled: true },
  cors: { enabled: false, allowed_origins: ['*'] },
  caching: {
    sql_results: { ...cacheDefaults, cache_key_type: 'plan', encoding: 'none', stale_while_revalidate_ttl: 0 },
    search_results: cacheDefaults,
    embeddings: cacheDefaults,
  },
  telemetry: { enabled: true, properties: {} },
  metrics: [],
  task_history: {
    enabled: true,
    captured_output: 'none',
    captured_context: 'truncated',
    captured_plan: 'none',
    retention_period: 8 * 3_600_000,
    retention_check_interval: 15 * 60_000,
  },
  functions: { enabled: false },
  mcp: {},
  source_rate_control: { refresh_interval: 30_000, codehost_concurrent_connections_limit: 10 },
};

test('an empty runtime section resolves to exactly the spec defaults', async (t) => {
  const { manifest, warnings } = await load('runtime: {}\n');
  t.deepEqual(manifest.runtime, EMPTY_RUNTIME);
  t.deepEqual(warnings, []);
});

test('a manifest without runtime (or with an empty runtime:) gets the same defaults', async (t) => {
  t.deepEqual((await load('name: app\n')).manifest.runtime, EMPTY_RUNTIME);
  t.deepEqual((await load('runtime:\n')).manifest.runtime, EMPTY_RUNTIME);
});

test('top-level defaults: version v2, kind Spicepod, name from the directory, empty lists', async (t) => {
  const { manifest, source } = await load('datasets:\n');
  t.is(manifest.version, 'v2');
  t.is(manifest.kind, 'Spicepod');
  t.is(manifest.name, path.basename(source.directory));
  t.deepEqual(manifest.datasets, []);
  t.deepEqual(manifest.secrets, []);
  t.deepEqual(manifest.plugins, []);
  t.deepEqual(manifest.functions, []);
  t.deepEqual(manifest.tools, []);
});

test('nested sections fill the defaults of the fields left out', async (t) => {
  const { manifest } = await load(`
runtime:
  auth:
    api-key:
      keys: [abc]
  caching:
    sql_results:
      max_size: 1GiB
  telemetry:
    otel_exporter:
      endpoint: localhost:4317
  scheduler:
    state_location: file:///var/lib/quarry/cluster/
  tls:
    enabled: true
    certificate_file: cert.pem
    key_file: key.pem
`);
  const runtime = manifest.runtime as Record<string, unknown>;
  t.deepEqual(runtime.auth, { 'api-key': { enabled: true, keys: ['abc'] } });
  t.deepEqual((runtime.caching as { sql_results: unknown }).sql_results, {
    ...cacheDefaults,
    max_size: 1024 * MIB,
    cache_key_type: 'plan',
    encoding: 'none',
    stale_while_revalidate_ttl: 0,
  });
  t.deepEqual((runtime.telemetry as { otel_exporter: unknown }).otel_exporter, {
    enabled: true,
    endpoint: 'localhost:4317',
    push_interval: 60_000,
    metrics: [],
    headers: {},
  });
  t.deepEqual(runtime.scheduler, {
    state_location: 'file:///var/lib/quarry/cluster/',
    partition_assignment_interval: 30_000,
    max_partition_assignments_per_interval: 100,
    max_partitions_per_executor: 1000,
    partition_discovery_timeout: 60_000,
  });
  t.deepEqual(manifest.runtime.tls, { enabled: true, certificate_file: 'cert.pem', key_file: 'key.pem', client_auth_mode: 'none' });
});

test('the api_key alias is read as api-key', async (t) => {
  const { manifest } = await load('runtime:\n  auth:\n    api_key:\n      enabled: false\n');
  t.deepEqual(manifest.runtime.auth, { 'api-key': { enabled: false, keys: [] } });
});

test('datasets get their defaults', async (t) => {
  const { manifest } = await load('datasets:\n  - from: file:orders.parquet\n    name: orders\n    acceleration:\n      enabled: true\n');
  t.deepEqual(manifest.datasets, [
    {
      from: 'file:orders.parquet',
      name: 'orders',
      access: 'read',
      params: {},
      acceleration: { enabled: true, engine: 'duckdb', mode: 'memory', params: {} },
    },
  ]);
});

test('plugin entries and secret stores get their defaults', async (t) => {
  const { manifest } = await load('plugins:\n  - name: cors\nsecrets:\n  - from: env\n');
  t.deepEqual(manifest.plugins, [{ name: 'cors', enabled: true, params: {} }]);
  t.deepEqual(manifest.secrets, [{ from: 'env', name: 'env', params: {} }]);
});

test('v1 manifests, kind Quarry and an explicit name are accepted', async (t) => {
  const { manifest } = await load('version: v1\nkind: Quarry\nname: shop\n');
  t.is(manifest.version, 'v1');
  t.is(manifest.kind, 'Quarry');
  t.is(manifest.name, 'shop');
});

test('durations and sizes accept the documented notations', async (t) => {
  const { manifest } = await load('runtime:\n  shutdown_timeout: 1m30s\n  query:\n    memory_limit: 1.5GiB\n  caching:\n    sql_results:\n      item_ttl: 500ms\n      max_size: 1048576\n');
  t.is(manifest.runtime.shutdown_timeout, 90_000);
  t.is(manifest.runtime.query.memory_limit, 1.5 * 1024 * MIB);
  const sql = (manifest.runtime.caching as { sql_results: { item_ttl: number; max_size: number } }).sql_results;
  t.is(sql.item_ttl, 500);
  t.is(sql.max_size, 1_048_576);
});
