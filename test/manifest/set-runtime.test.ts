import test from 'ava';
import { load } from './helpers.js';

test('--set-runtime results_cache.enabled=false goes through the deprecation like the manifest key', async (t) => {
  const { manifest, warnings } = await load('runtime: {}\n', { setRuntime: ['results_cache.enabled=false'] });
  t.false((manifest.runtime.caching as { sql_results: { enabled: boolean } }).sql_results.enabled);
  t.is(warnings.length, 1);
  t.regex(warnings[0]!, /^runtime\.results_cache is deprecated/);
});

test('--set-runtime values are YAML scalars and override the manifest', async (t) => {
  const { manifest } = await load('runtime:\n  shutdown_timeout: 10s\n  ready_state: on_load\n', {
    setRuntime: ['shutdown_timeout=45s', 'ready_state=on_registration', 'dataset_load_parallelism=3', 'cors.enabled=true'],
  });
  t.is(manifest.runtime.shutdown_timeout, 45_000);
  t.is(manifest.runtime.ready_state, 'on_registration');
  t.is(manifest.runtime.dataset_load_parallelism, 3);
  t.true((manifest.runtime.cors as { enabled: boolean }).enabled);
});

test('--set-runtime creates missing sections, takes flow lists and a leading runtime.', async (t) => {
  const { manifest } = await load('name: app\n', { setRuntime: ['runtime.cors.allowed_origins=[https://a.example, https://b.example]', 'tls.enabled=false'] });
  t.deepEqual((manifest.runtime.cors as { allowed_origins: string[] }).allowed_origins, ['https://a.example', 'https://b.example']);
  t.false(manifest.runtime.tls?.enabled);
});

test('--set-runtime values are validated like manifest values', async (t) => {
  const error = await t.throwsAsync(load('runtime: {}\n', { setRuntime: ['output_level=loud'] }));
  t.regex(error!.message, /runtime\.output_level: invalid value "loud": expected one of info, verbose, very_verbose$/);
});

test('--set-runtime with an empty value sets an empty string', async (t) => {
  const { manifest } = await load('runtime: {}\n', { setRuntime: ['params.my_flag='] });
  t.is(manifest.runtime.params.my_flag, '');
});
