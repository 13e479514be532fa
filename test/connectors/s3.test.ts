import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { startS3Server, type S3TestServer } from '../helpers/s3-server.js';
import { withRuntime } from '../helpers/runtime.js';
import { datasetStatuses, jsonRows, logFields, manifestWith } from './helpers.js';

let s3: S3TestServer;

/** Parquet bytes written by DuckDB from a SELECT. */
async function parquet(select: string): Promise<Buffer> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-parquet-'));
  const file = path.join(directory, 'part.parquet');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run(`COPY (${select}) TO '${file}' (FORMAT parquet)`);
  connection.closeSync();
  instance.closeSync();
  const bytes = readFileSync(file);
  rmSync(directory, { recursive: true, force: true });
  return bytes;
}

test.before(async () => {
  s3 = await startS3Server(['lake', 'open-data']);
  await s3.put('lake', 'orders/year=2023/part-0.parquet', await parquet('SELECT range AS id, range * 2 AS amount FROM range(10)'));
  await s3.put('lake', 'orders/year=2024/part-0.parquet', await parquet('SELECT range + 100 AS id, range * 3 AS amount FROM range(5)'));
  await s3.put('lake', 'orders/_SUCCESS', 'not data');
  await s3.put('open-data', 'cities/cities.csv', 'name,population\nParis,2100000\nLyon,520000\n');
});

test.after.always(async () => {
  await s3?.stop();
});

function dataset(name: string, from: string, params: Record<string, string>, extra = ''): string {
  const lines = Object.entries(params).map(([key, value]) => `      ${key}: "${value}"`);
  return [`  - from: ${from}`, `    name: ${name}`, '    params:', ...lines].join('\n') + extra;
}

const keyParams = () => ({ s3_endpoint: s3.endpoint, s3_auth: 'key', s3_key: 'S3RVER', s3_secret: 'S3RVER', hive_partitioning_enabled: 'true' });

test('s3: a live parquet dataset with hive partitions; each query sees new objects', async (t) => {
  await withRuntime(t, { manifest: manifestWith(dataset('orders', 's3://lake/orders/', keyParams())) }, async ({ sql, logs }) => {
    t.deepEqual(await jsonRows(await sql('SELECT year, count(*) AS n, sum(amount) AS total FROM orders GROUP BY year ORDER BY year')), [
      { year: 2023, n: 10, total: 90 },
      { year: 2024, n: 5, total: 30 },
    ]);
    await s3.put('lake', 'orders/year=2025/part-0.parquet', await parquet('SELECT 999 AS id, 1 AS amount'));
    try {
      t.deepEqual(await jsonRows(await sql('SELECT count(*) AS n FROM orders WHERE year = 2025')), [{ n: 1 }]);
    } finally {
      await s3.remove('lake', 'orders/year=2025/part-0.parquet');
    }
    t.deepEqual(await jsonRows(await sql('SELECT count(*) AS n FROM orders WHERE year = 2025', { headers: { 'cache-control': 'no-cache' } })), [{ n: 0 }], 'a deleted object leaves the mirror');
    const syncs = logFields(logs, 's3 mirror synchronised');
    t.true(syncs.some((fields) => fields['downloaded'] === 0), 'unchanged objects are not downloaded again');
  });
});

test('s3: an accelerated dataset loads from the bucket; refresh picks up a changed object', async (t) => {
  await s3.put('lake', 'prices/p.parquet', await parquet('SELECT 1 AS id, 10 AS price'));
  const manifest = manifestWith(dataset('prices', 's3://lake/prices/', keyParams(), '\n    acceleration:\n      enabled: true'));
  await withRuntime(t, { manifest }, async ({ sql, baseUrl }) => {
    t.deepEqual(await jsonRows(await sql('SELECT price FROM prices')), [{ price: 10 }]);
    const changed = await parquet('SELECT 1 AS id, 12 AS price');
    await s3.put('lake', 'prices/p.parquet', changed);
    t.deepEqual(await jsonRows(await sql('SELECT price FROM prices', { headers: { 'cache-control': 'no-cache' } })), [{ price: 10 }], 'served from the acceleration until refreshed');
    const refreshed = await fetch(`${baseUrl}/v1/datasets/prices/acceleration/refresh`, { method: 'POST' });
    t.is(refreshed.status, 201);
    // The refresh downloaded the changed object (its bytes counted as they came) and wrote one row.
    t.like(((await refreshed.json()) as { dataset: { last_load: unknown } }).dataset.last_load, { kind: 'refresh', rows: 1, bytes: changed.length });
    t.deepEqual(await jsonRows(await sql('SELECT price FROM prices', { headers: { 'cache-control': 'no-cache' } })), [{ price: 12 }]);
  });
});

test('s3: public (unsigned) access to csv objects', async (t) => {
  const manifest = manifestWith(dataset('cities', 's3://open-data/cities/', { s3_endpoint: s3.endpoint, s3_auth: 'public', file_format: 'csv' }));
  await withRuntime(t, { manifest }, async ({ sql }) => {
    t.deepEqual(await jsonRows(await sql('SELECT name FROM cities WHERE population > 1000000')), [{ name: 'Paris' }]);
  });
});

test('s3: bad params, an unreachable endpoint, a missing bucket and an empty prefix put the dataset in error', async (t) => {
  const manifest = manifestWith([
    dataset('typo', 's3://lake/orders/', { ...keyParams(), s3_regoin: 'x' }),
    dataset('nokey', 's3://lake/orders/', { s3_endpoint: s3.endpoint, s3_auth: 'key' }),
    dataset('badauth', 's3://lake/orders/', { s3_endpoint: s3.endpoint, s3_auth: 'iam' }),
    dataset('gone', 's3://lake/orders/', { ...keyParams(), s3_endpoint: 'http://127.0.0.1:1' }),
    dataset('nobucket', 's3://no-such-bucket/x/', keyParams()),
    dataset('empty', 's3://lake/nothing-here/', keyParams()),
  ].join('\n'));
  await withRuntime(t, { manifest }, async ({ baseUrl, sql }) => {
    const statuses = await datasetStatuses(baseUrl);
    t.regex(statuses.get('typo')?.error ?? '', /params\.s3_regoin is not a parameter of s3: datasets; accepted: s3_region, s3_endpoint/);
    t.regex(statuses.get('nokey')?.error ?? '', /s3_auth: key needs params\.s3_key and params\.s3_secret/);
    t.regex(statuses.get('badauth')?.error ?? '', /params\.s3_auth is "iam"; accepted: public, key/);
    t.regex(statuses.get('gone')?.error ?? '', /dataset gone: s3:\/\/lake\/orders\/ at http:\/\/127\.0\.0\.1:1: .*(ECONNREFUSED|connect)/);
    t.regex(statuses.get('nobucket')?.error ?? '', /NoSuchBucket|does not exist/);
    t.regex(statuses.get('empty')?.error ?? '', /no parquet objects under s3:\/\/lake\/nothing-here\//);
    for (const name of ['typo', 'nokey', 'badauth', 'gone', 'nobucket', 'empty']) t.is(statuses.get(name)?.status, 'Error', name);
    t.false((await sql('SELECT * FROM gone')).ok, 'never an empty result');
  });
});
