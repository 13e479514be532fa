import test from 'ava';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { load } from '../manifest/helpers.js';

test('secrets from .env and .env.local beside the manifest, process environment first', async (t) => {
  const { manifest } = await load(
    'runtime:\n  auth:\n    api-key:\n      keys: ["${ secrets:key_a }", "${ secrets:key_b }", "${ secrets:key_c }"]\n',
    { files: { '.env': 'KEY_A=a-env\nKEY_B=b-env\nKEY_C=c-env\n', '.env.local': 'KEY_B=b-local\nKEY_C=c-local\n' }, env: { KEY_C: 'c-process' } },
  );
  t.deepEqual((manifest.runtime.auth as { 'api-key': { keys: string[] } })['api-key'].keys, ['a-env', 'b-local', 'c-process']);
});

test('a file store and an env store with file_path from secrets:', async (t) => {
  const { manifest } = await load(
    `secrets:
  - from: env
    name: envfile
    params:
      file_path: prod.env
  - from: file
    name: k8s
    params:
      directory: run/secrets
datasets:
  - from: file:orders.parquet
    name: orders
    params:
      user: "\${ envfile:PG_USER }"
      password: "\${ k8s:pg_pass }"
      dsn: "postgres://\${ secrets:PG_USER }:\${ secrets:pg_pass }@db/shop"
`,
    { files: { 'prod.env': 'PG_USER=shop\n', 'run/secrets/pg_pass': 'hunter22\n', '.env': 'PG_USER=ignored\n' } },
  );
  t.deepEqual(manifest.datasets[0]!.params, { user: 'shop', password: 'hunter22', dsn: 'postgres://shop:hunter22@db/shop' });
});

test('secrets: { store: env }, the mapping older Spice pods write, is the env store', async (t) => {
  const { manifest } = await load('secrets:\n  store: env\ndatasets:\n  - from: file:x.csv\n    name: x\n    params:\n      token: "${ secrets:token }"\n', { files: { '.env': 'TOKEN=from-dotenv\n' } });
  t.deepEqual(manifest.secrets, [{ from: 'env', name: 'env', params: {} }]);
  t.is(manifest.datasets[0]!.params['token'], 'from-dotenv');
  const other = await t.throwsAsync(load('secrets:\n  store: env\n  extra: 1\n'));
  t.is((other as QuarryError).code, 'MANIFEST_INVALID', 'any other mapping is still refused');
});

test('secrets are replaced in every documented field', async (t) => {
  const env = { S: 'v4lue' };
  const { manifest } = await load(
    `runtime:
  tls:
    enabled: true
    certificate_file: "/certs/\${ secrets:s }.pem"
    key: "\${ secrets:s }"
    client_auth_mode: request
    client_auth_ca: "\${ secrets:s }"
  telemetry:
    otel_exporter:
      endpoint: localhost:4317
      headers: { authorization: "\${ secrets:s }" }
  source_rate_control:
    params: { objstore_key: "\${ secrets:s }" }
  scheduler:
    state_location: s3://state/
    params: { objstore_secret: "\${ secrets:s }" }
datasets:
  - from: file:x.parquet
    name: x
    params: { p: "\${ secrets:s }" }
    acceleration:
      params: { duckdb_file: "\${ secrets:s }.db" }
functions:
  - name: f
    from: https://fn.example
    signature: { args: [{ name: x, type: utf8 }], returns: utf8 }
    params: { auth_bearer: "\${ secrets:s }", nested: { deep: "\${ secrets:s }" } }
tools:
  - name: t
    params: { token: "\${ secrets:s }" }
`,
    { env },
  );
  const runtime = manifest.runtime as Record<string, Record<string, unknown>>;
  t.like(runtime.tls, { certificate_file: '/certs/v4lue.pem', key: 'v4lue', client_auth_ca: 'v4lue' });
  t.deepEqual((runtime.telemetry!.otel_exporter as { headers: unknown }).headers, { authorization: 'v4lue' });
  t.deepEqual(runtime.source_rate_control!.params, { objstore_key: 'v4lue' });
  t.deepEqual(runtime.scheduler!.params, { objstore_secret: 'v4lue' });
  t.deepEqual(manifest.datasets[0]!.params, { p: 'v4lue' });
  t.deepEqual(manifest.datasets[0]!.acceleration!.params, { duckdb_file: 'v4lue.db' });
  t.deepEqual((manifest.functions[0] as { params: unknown }).params, { auth_bearer: 'v4lue', nested: { deep: 'v4lue' } });
  t.deepEqual((manifest.tools[0] as { params: unknown }).params, { token: 'v4lue' });
});

test('every missing secret is listed in one SECRET_NOT_FOUND error', async (t) => {
  const error = await t.throwsAsync(
    load('runtime:\n  auth:\n    api-key:\n      keys: ["${ secrets:one }", "${ secrets:two }"]\ndatasets:\n  - from: file:x\n    name: x\n    params:\n      t: "${ env:THREE }"\n'),
  );
  t.is((error as QuarryError).code, 'SECRET_NOT_FOUND');
  const lines = error!.message.split('\n').sort();
  t.is(lines.length, 3);
  t.regex(lines[0]!, /^environment variable "THREE" used at datasets\[0\]\.params\.t is not set \(env: process environment, /);
  t.regex(lines[1]!, /^secret "one" used at runtime\.auth\.api-key\.keys\[0\]/);
  t.regex(lines[2]!, /^secret "two" used at runtime\.auth\.api-key\.keys\[1\]/);
  t.is((error as QuarryError).details?.missing, 3);
});

test('listing stores in secrets: replaces the implicit env store', async (t) => {
  const error = await t.throwsAsync(
    load('secrets:\n  - from: file\n    name: k8s\n    params: { directory: s }\nruntime:\n  auth:\n    api-key:\n      keys: ["${ secrets:k }"]\n', { files: { 's/other': 'x' }, env: { K: 'in-env' } }),
  );
  t.regex(error!.message, /was not found in any secret store \(k8s: files in .*\/s\)$/);
});
