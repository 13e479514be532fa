import test from 'ava';
import { withRuntime, startRuntime } from '../helpers/runtime.js';
import { columnarSettings } from '../../core/engine/acceleration/columnar-params.js';
import { QuarryError } from '../../core/errors/quarry-error.js';

/** `runtime.params.columnar_*` reach the engine: each setting is read back from DuckDB itself. */

test('columnar params set the engine settings they map to, and warn where the engine falls short', async (t) => {
  const manifest = `
runtime:
  query:
    memory_limit: 1GiB
  params:
    columnar_footer_cache_mb: 64
    columnar_filter_propagation: disabled
    columnar_compaction_memory_fraction: 0.9
    columnar_sort_merge_min_rows: 500
    columnar_sort_merge_memory_pool_fraction: 0.3
datasets:
  - from: file:events.csv
    name: events
    acceleration:
      enabled: true
`;
  await withRuntime(t, { manifest, files: { 'events.csv': 'id\n1\n' } }, async ({ sql, logs }) => {
    const response = await sql(
      `SELECT current_setting('parquet_metadata_cache') AS footer, current_setting('disabled_optimizers') AS disabled,
              current_setting('write_buffer_row_group_memory_limit') AS compaction, current_setting('dynamic_or_filter_threshold') AS threshold,
              current_setting('threads') AS threads`,
      { accept: 'application/json' },
    );
    const [row] = (await response.json()) as Array<{ footer: boolean; disabled: string; compaction: string; threshold: number; threads: number }>;
    t.is(row!.footer, true);
    t.is(row!.disabled, 'join_filter_pushdown');
    t.is(row!.threshold, 500);
    // 0.9 is clamped to 0.5: half of 1 GiB, divided over the engine's threads.
    const expectedBytes = Math.floor((1024 ** 3 * 0.5) / row!.threads);
    t.is(row!.compaction, `${(expectedBytes / 1024 ** 2).toFixed(1)} MiB`);
    const warnings = logs.filter((record) => record.level === 'warn').map((record) => record.message);
    t.true(warnings.some((message) => /columnar_compaction_memory_fraction=0.9 is outside 0.05..0.5; clamped to 0.5/.test(message)));
    t.true(warnings.some((message) => /columnar_sort_merge_memory_pool_fraction has no effect/.test(message)));
    t.true(warnings.some((message) => /columnar_footer_cache_mb=64: .* no size limit/.test(message)));
    // The dataset is still accelerated and served.
    t.is((await sql('SELECT count(*) FROM events')).status, 200);
  });
});

test('columnar_optimizer_rules: a list keeps only those rules, none switches all off, auto leaves the engine alone', (t) => {
  const engine = { optimizers: ['filter_pushdown', 'join_filter_pushdown', 'top_n'], memoryLimitBytes: 1024, threads: 1 };
  t.is(columnarSettings({ columnar_optimizer_rules: 'filter_pushdown, top_n' }, engine).settings.get('disabled_optimizers'), "'join_filter_pushdown'");
  t.is(columnarSettings({ columnar_optimizer_rules: 'none' }, engine).settings.get('disabled_optimizers'), "'filter_pushdown,join_filter_pushdown,top_n'");
  t.is(columnarSettings({ columnar_optimizer_rules: 'none', columnar_filter_propagation: 'enabled' }, engine).settings.get('disabled_optimizers'), "'filter_pushdown,top_n'");
  t.is(columnarSettings({ columnar_optimizer_rules: 'auto' }, engine).settings.get('disabled_optimizers'), "''", 'auto: every rule runs');
  t.deepEqual([...columnarSettings({}, engine).settings], [], 'no columnar params: no engine setting is touched');
  const error = t.throws(() => columnarSettings({ columnar_optimizer_rules: 'filter_pushdown,warp_drive' }, engine), { instanceOf: QuarryError });
  t.is(error.code, 'ENGINE_SETTING_INVALID');
  t.regex(error.message, /unknown rule warp_drive; .* filter_pushdown, join_filter_pushdown, top_n/);
});

test('columnar_optimizer_rules reaches the engine; an unknown rule stops start-up', async (t) => {
  await withRuntime(t, { manifest: 'runtime:\n  params:\n    columnar_optimizer_rules: none\ndatasets: []\n' }, async ({ sql }) => {
    const [row] = (await (await sql("SELECT current_setting('disabled_optimizers') AS disabled, (SELECT count(*)::INT FROM duckdb_optimizers()) AS total", { accept: 'application/json' })).json()) as Array<{ disabled: string; total: number }>;
    t.is(row!.disabled.split(',').length, row!.total);
    t.is((await sql('SELECT 1 + 1')).status, 200, 'queries still run without optimizers');
  });
  const failure = await t.throwsAsync(startRuntime({ manifest: 'runtime:\n  params:\n    columnar_optimizer_rules: warp_drive\ndatasets: []\n' }));
  t.is((failure as QuarryError).code, 'ENGINE_SETTING_INVALID');
});

test('a columnar_* key inside a dataset acceleration.params is a start-up error naming the dataset and key', async (t) => {
  const manifest = `
datasets:
  - from: file:events.csv
    name: events
    acceleration:
      params:
        columnar_footer_cache_mb: 10
`;
  const failure = await t.throwsAsync(startRuntime({ manifest, files: { 'events.csv': 'id\n1\n' } }));
  t.is((failure as QuarryError).code, 'MANIFEST_INVALID');
  t.regex(failure!.message, /datasets\[0\]\.acceleration\.params\.columnar_footer_cache_mb/);
  t.regex(failure!.message, /columnar_footer_cache_mb is an engine-wide setting and is not accepted per dataset \(dataset "events"\): set runtime\.params\.columnar_footer_cache_mb instead/);
});
