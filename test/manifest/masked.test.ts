import test from 'ava';
import { load } from './helpers.js';

const SECRETS = {
  API_KEY: 'sk-live-0123456789',
  PG_PASS: 'correct-horse-battery',
  OTEL_TOKEN: 'otel-token-abcdef',
  S3_SECRET: 's3-secret-value-xyz',
  TLS_KEY: '-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBg\n-----END PRIVATE KEY-----\n',
};

const MANIFEST = `
runtime:
  auth:
    api-key:
      keys: ["\${ secrets:api_key }:rw", "inline-readonly-key"]
  tls:
    enabled: true
    certificate: "-----BEGIN CERTIFICATE-----\\nMIIB\\n-----END CERTIFICATE-----\\n"
    key: "\${ secrets:TLS_KEY }"
  telemetry:
    otel_exporter:
      endpoint: https://collector.example/v1/metrics
      headers:
        authorization: "Bearer \${ env:OTEL_TOKEN }"
        x-team: data
  source_rate_control:
    state_location: s3://limits/quarry/
    params:
      objstore_region: eu-west-1
      objstore_secret: "\${ secrets:s3_secret }"
  caching:
    sql_results:
      item_ttl: 90s
      max_size: 256MiB
datasets:
  - from: file:orders.parquet
    name: orders
    params:
      connection: "postgres://app:\${secrets:pg_pass}@db:5432/shop"
      pg_pass: written-inline
      file_format: parquet
`;

test('the resolved manifest carries the secret values', async (t) => {
  const { manifest, secretValues } = await load(MANIFEST, { env: SECRETS });
  t.deepEqual((manifest.runtime.auth as { 'api-key': { keys: string[] } })['api-key'].keys, [`${SECRETS.API_KEY}:rw`, 'inline-readonly-key']);
  t.is(manifest.runtime.tls?.key, SECRETS.TLS_KEY);
  t.is(manifest.datasets[0]!.params.connection, `postgres://app:${SECRETS.PG_PASS}@db:5432/shop`);
  t.deepEqual([...secretValues].sort(), Object.values(SECRETS).sort());
});

test('masked output never contains a secret value, key material or credential parameter', async (t) => {
  const { masked } = await load(MANIFEST, { env: SECRETS });
  const text = JSON.stringify(masked);
  for (const value of [...Object.values(SECRETS), 'inline-readonly-key', 'written-inline', 'MIIB']) {
    t.false(text.includes(JSON.stringify(value).slice(1, -1)), `masked output contains ${value}`);
  }
  const runtime = (masked as { runtime: Record<string, Record<string, unknown>> }).runtime;
  t.deepEqual(runtime.auth, { 'api-key': { enabled: true, keys: ['***', '***'] } });
  t.like(runtime.tls, { certificate: '***', key: '***', enabled: true });
  t.deepEqual((runtime.telemetry!.otel_exporter as { headers: unknown }).headers, { authorization: '***', 'x-team': 'data' });
  t.deepEqual(runtime.source_rate_control!.params, { objstore_region: 'eu-west-1', objstore_secret: '***' });
  const dataset = (masked as { datasets: Array<{ params: Record<string, string> }> }).datasets[0]!;
  t.deepEqual(dataset.params, { connection: '***', pg_pass: '***', file_format: 'parquet' });
});

test('masked output writes durations and sizes in manifest notation', async (t) => {
  const { masked } = await load(MANIFEST, { env: SECRETS });
  const runtime = (masked as { runtime: Record<string, Record<string, unknown>> }).runtime;
  t.is(runtime.shutdown_timeout as unknown, '30s');
  t.like(runtime.caching!.sql_results, { item_ttl: '1m30s', max_size: '256MiB', stale_while_revalidate_ttl: '0s' });
  t.like(runtime.task_history, { retention_period: '8h', retention_check_interval: '15m' });
  t.like(runtime.source_rate_control, { refresh_interval: '30s', codehost_concurrent_connections_limit: 10 });
});

test('warnings never contain secret values', async (t) => {
  // The secret lands in a field nothing replaces it in... and in one that is replaced.
  const { warnings } = await load('runtime:\n  params:\n    custom_flag: "${ secrets:api_key }"\n  auth:\n    api-key:\n      keys: ["${ secrets:api_key }"]\n', { env: SECRETS });
  t.true(warnings.length > 0);
  for (const warning of warnings) t.false(warning.includes(SECRETS.API_KEY));
});

test('validation errors show references as written, never the values behind them', async (t) => {
  const error = await t.throwsAsync(
    load('runtime:\n  auth:\n    api-key:\n      enabled: "${ secrets:api_key }"\n      keys: ["${ secrets:api_key }"]\n', { env: SECRETS }),
  );
  t.false(error!.message.includes(SECRETS.API_KEY));
  t.regex(error!.message, /runtime\.auth\.api-key\.enabled: invalid value "\$\{ secrets:api_key \}": expected true or false/);
});

test('a missing secret error names the secret, never other values', async (t) => {
  const error = await t.throwsAsync(load('runtime:\n  auth:\n    api-key:\n      keys: ["${ secrets:api_key }", "${ secrets:missing_one }"]\n', { env: SECRETS }));
  t.false(error!.message.includes(SECRETS.API_KEY));
  t.regex(error!.message, /^secret "missing_one" used at runtime\.auth\.api-key\.keys\[1\] was not found in any secret store/);
});
