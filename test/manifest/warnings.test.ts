import test from 'ava';
import { isConfigured } from '../../core/manifest/presence.js';
import { defaultPlugins, loadedDefaultPlugins } from '../../plugins/default-bundle.js';
import { load } from './helpers.js';

test('Spice-only top-level keys and runtime.tracing are named in one warning each and dropped', async (t) => {
  const { manifest, warnings } = await load('models: []\nviews: []\nworkers: []\nruntime:\n  tracing:\n    zipkin_enabled: true\n');
  t.deepEqual(warnings, [
    'models, workers: Spice features Quarry does not serve; these sections are ignored',
    'runtime.tracing: a Spice feature Quarry does not serve; this section is ignored',
  ]);
  t.false('models' in manifest);
  t.false('tracing' in manifest.runtime);
  t.deepEqual(manifest.views, [], 'views are served (test/engine/manifest-views.test.ts)');
});

test('unknown runtime.params keys warn with did-you-mean and are kept', async (t) => {
  const { manifest, warnings } = await load('runtime:\n  params:\n    http_max_concurent_requests: 8\n    my_custom_flag: on\n');
  t.deepEqual(warnings, [
    'runtime.params.http_max_concurent_requests: unknown parameter (did you mean "http_max_concurrent_requests"?); it is kept but nothing reads it',
    'runtime.params.my_custom_flag: unknown parameter; it is kept but nothing reads it',
  ]);
  t.is(manifest.runtime.params.my_custom_flag, 'on');
});

test('runtime.flight, http_*, columnar_*, geo and the dataset refresh keys are acted on: no warnings', async (t) => {
  const { warnings } = await load(`
runtime:
  query:
    spill_compression: lz4_frame
  flight:
    max_message_size: 16MiB
    do_put_rate_limit_enabled: false
  params:
    http_requests_per_second_limit: 5
    columnar_filter_propagation: enabled
    geo: enabled
datasets:
  - from: file:orders.parquet
    name: orders
    time_column: created_at
    acceleration:
      refresh_mode: append
`);
  t.deepEqual(warnings, [], 'each of these keys is acted on');
});

test('runtime.params.geo enabled warns only when the geo plugin is not part of the deployment', async (t) => {
  const text = 'runtime:\n  params:\n    geo: enabled\n';
  t.deepEqual((await load(text)).warnings, [], 'the default bundle has the geo plugin');
  const { warnings } = await load(`${text}plugins:\n  - name: geo\n    enabled: false\n`);
  t.deepEqual(warnings, ['runtime.params.geo is "enabled" but has no effect: the geo plugin (the spatial ST_* functions) is not part of this deployment']);
});

test('search settings of a dataset warn when the search plugin is disabled', async (t) => {
  const text = 'datasets:\n  - from: file:x.csv\n    name: docs\n    columns:\n      - name: body\n        full_text_search:\n          enabled: true\n';
  t.deepEqual((await load(text)).warnings, [], 'the default bundle has the search plugin');
  const { warnings } = await load(`${text}plugins:\n  - name: search\n    enabled: false\n`);
  t.deepEqual(warnings, ['full_text_search and embeddings of docs have no effect: the search plugin is not part of this deployment']);
});

test('client_auth_mode without TLS warns instead of failing', async (t) => {
  const { warnings } = await load('runtime:\n  tls:\n    client_auth_mode: required\n');
  t.deepEqual(warnings, ['runtime.tls.client_auth_mode is "required" but TLS is not enabled (runtime.tls.enabled is not true): client certificates are not requested']);
});

test('a secret reference where nothing replaces it warns', async (t) => {
  const { manifest, warnings } = await load('runtime:\n  cors:\n    allowed_origins: ["${ secrets:origin }"]\n');
  t.deepEqual((manifest.runtime.cors as { allowed_origins: string[] }).allowed_origins, ['${ secrets:origin }']);
  t.deepEqual(warnings, [
    'runtime.cors.allowed_origins[0]: secret references are not replaced in this field (it is used as written); see docs/secrets.md for the fields that accept them',
  ]);
});

test('isConfigured tells what was written from what the schema defaulted', async (t) => {
  const { manifest } = await load('runtime:\n  task_history:\n    enabled: false\nfunctions:\n  - name: f\n    from: sql\n    body: "1"\n    signature: { returns: int64 }\n');
  t.true(isConfigured(manifest, 'runtime.task_history'));
  t.true(isConfigured(manifest, 'functions'));
  t.false(isConfigured(manifest, 'runtime.cors'), 'cors is in the manifest object only through its defaults');
});

test('every built-in plugin owns its sections and the bundle names them without loading the plugin', async (t) => {
  const loaded = await loadedDefaultPlugins();
  const owned = Object.fromEntries(loaded.map((plugin) => [plugin.name, (plugin.manifest ?? []).map((slice) => slice.path)]));
  t.deepEqual(Object.fromEntries(defaultPlugins().map((plugin) => [plugin.name, plugin.sections])), owned, 'default-bundle.ts lists the sections each plugin declares');
  t.deepEqual(owned, {
    'api-key': ['runtime.auth'],
    'client-cert': [],
    'connector-duckdb': [],
    'connector-postgres': [],
    'connector-s3': [],
    'connector-sqlite': [],
    cors: ['runtime.cors'],
    'results-cache': ['runtime.caching', 'runtime.results_cache'],
    telemetry: ['runtime.telemetry', 'runtime.metrics'],
    'task-history': ['runtime.task_history'],
    'spice-catalog': [],
    functions: ['runtime.functions', 'functions', 'tools'],
    geo: [],
    playground: [],
    search: ['embeddings'],
    mcp: ['runtime.mcp'],
    'source-rate-control': ['runtime.source_rate_control'],
    'http-connectors': [],
    scheduler: ['runtime.scheduler'],
  });
});

test('a v1beta1 pod loads as v1 with one warning saying what to write; an unknown version lists the accepted ones', async (t) => {
  const { manifest, warnings } = await load('version: v1beta1\nkind: Spicepod\nname: old\ndatasets: []\n');
  t.is(manifest.version, 'v1beta1');
  t.deepEqual(warnings, ['version: v1beta1 is an older Spice format; it is loaded as v1, whose fields it uses. Write `version: v1` (or `v2`) to silence this warning']);
  const error = await t.throwsAsync(load('version: v3\n'));
  t.regex(error!.message, /version.*v1beta1.*v1.*v2/s);
});

test('Spice\'s sqlite and postgres acceleration engines load with one warning each: the embedded engine serves them', async (t) => {
  const { manifest, warnings } = await load(`datasets:
  - from: file:a.csv
    name: a
    acceleration: { engine: sqlite }
  - from: file:b.csv
    name: b
    acceleration: { engine: postgres, mode: file }
  - from: file:c.csv
    name: c
    acceleration: { engine: arrow }
`);
  t.deepEqual(manifest.datasets.map((dataset) => dataset.acceleration?.engine), ['sqlite', 'postgres', 'arrow']);
  t.deepEqual(warnings, [
    "datasets[0] (a).acceleration.engine: sqlite is served by Quarry's embedded DuckDB engine, in memory; no SQLite file is used",
    "datasets[1] (b).acceleration.engine: postgres is served by Quarry's embedded DuckDB engine, in a DuckDB file under .quarry/acceleration/; no PostgreSQL server is used",
  ]);
});

test('dataset columns: descriptions and search settings are taken; other Spice column keys are kept with a warning', async (t) => {
  const { manifest, warnings } = await load('datasets:\n  - from: file:x.csv\n    name: x\n    columns:\n      - name: title\n        description: The title\n        embeddings:\n          - from: local_model\n        full_text_search:\n          enabled: true\n      - name: body\n        type: string\n');
  t.is(manifest.datasets[0]!.columns?.[0]?.description, 'The title');
  t.deepEqual(manifest.datasets[0]!.columns?.[0]?.embeddings, [{ from: 'local_model' }]);
  t.deepEqual(warnings, ['datasets[0].columns[1] (body): type is accepted but not used']);
});

test('dataset search settings are validated with their paths', async (t) => {
  const error = await t.throwsAsync(load('datasets:\n  - from: file:x.csv\n    name: x\n    columns:\n      - name: body\n        embeddings:\n          - from: m\n            chunking:\n              enabled: true\n              target_chunk_size: 10\n              overlap_size: 10\n'));
  t.regex(error!.message, /datasets\[0\]\.columns\[0\]\.embeddings\[0\]\.chunking\.overlap_size: overlap_size must be smaller than target_chunk_size/);
});
