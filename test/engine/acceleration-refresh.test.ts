import { writeFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { CacheInvalidation } from '../../core/pipeline/types.js';
import { withRuntime, type TestRuntime } from '../helpers/runtime.js';
import { runCommand } from '../helpers/daemon.js';

/**
 * Refresh of accelerated datasets against a real runtime: CSV sources rewritten between
 * refreshes, refreshes asked for over HTTP, by the CLI and by the interval timer.
 */

async function rows<T = Record<string, unknown>>(context: TestRuntime, sql: string): Promise<T[]> {
  // no-cache: every query runs in the engine (a cached answer would hide what a refresh did).
  const response = await context.sql(sql, { accept: 'application/json', headers: { 'cache-control': 'no-cache' } });
  if (response.status !== 200) throw new Error(`${sql}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T[];
}

function refresh(context: TestRuntime, dataset: string, body?: unknown): Promise<Response> {
  return fetch(`${context.baseUrl}/v1/datasets/${dataset}/acceleration/refresh`, {
    method: 'POST',
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
}

async function datasetStatus(context: TestRuntime, name: string): Promise<{ status: string; error: string | null }> {
  const list = (await (await fetch(`${context.baseUrl}/v1/datasets`)).json()) as Array<{ name: string; status: string; error: string | null }>;
  return list.find((dataset) => dataset.name === name)!;
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function invalidations(context: TestRuntime): CacheInvalidation[] {
  const seen: CacheInvalidation[] = [];
  context.runtime.hooks.cache.invalidate.tap('test', (invalidation) => {
    seen.push(invalidation);
  });
  return seen;
}

const eventsManifest = (acceleration: string, extra = '') => `
datasets:
  - from: file:events.csv
    name: events
${extra}    acceleration:
${acceleration}`;

test('full refresh replaces the rows, applies refresh_sql, and fires cache invalidation', async (t) => {
  const manifest = eventsManifest(`      refresh_sql: SELECT * FROM events WHERE region = 'EU'\n`);
  await withRuntime(t, { manifest, files: { 'events.csv': 'id,region\n1,EU\n2,US\n' } }, async (context) => {
    t.deepEqual(await rows(context, 'SELECT id FROM events ORDER BY id'), [{ id: 1 }], 'refresh_sql applies to the first load');
    const seen = invalidations(context);
    writeFileSync(path.join(context.directory, 'events.csv'), 'id,region\n3,EU\n4,EU\n5,US\n');
    const response = await refresh(context, 'events');
    t.is(response.status, 201, await response.clone().text());
    t.deepEqual(await rows(context, 'SELECT id FROM events ORDER BY id'), [{ id: 3 }, { id: 4 }]);
    t.deepEqual(seen, [{ datasets: ['events'], reason: 'refresh' }]);
  });
});

test('the refresh body overrides refresh_sql and refresh_mode for that refresh only', async (t) => {
  const manifest = eventsManifest('      enabled: true\n', '    time_column: id\n');
  await withRuntime(t, { manifest, files: { 'events.csv': 'id,region\n1,EU\n2,US\n' } }, async (context) => {
    writeFileSync(path.join(context.directory, 'events.csv'), 'id,region\n1,EU\n2,US\n3,US\n4,EU\n');
    const append = await refresh(context, 'events', { refresh_mode: 'append', refresh_sql: "SELECT * FROM events WHERE region = 'EU'" });
    t.is(append.status, 201, await append.clone().text());
    t.deepEqual(await rows(context, 'SELECT id FROM events ORDER BY id'), [{ id: 1 }, { id: 2 }, { id: 4 }], 'only the new EU row was appended');
    t.is((await refresh(context, 'events')).status, 201);
    t.deepEqual(await rows(context, 'SELECT count(*)::INT AS n FROM events'), [{ n: 4 }], 'the next refresh is full again, without the filter');
  });
});

test('quarry refresh NAME --refresh-mode append --refresh-sql reaches the runtime', async (t) => {
  const manifest = eventsManifest('      enabled: true\n', '    time_column: id\n');
  await withRuntime(t, { manifest, files: { 'events.csv': 'id,region\n1,EU\n' } }, async (context) => {
    writeFileSync(path.join(context.directory, 'events.csv'), 'id,region\n1,EU\n2,US\n3,EU\n');
    const result = await runCommand('quarry', ['refresh', 'events', '--endpoint', context.baseUrl, '--refresh-mode', 'append', '--refresh-sql', "SELECT * FROM events WHERE region = 'US'"]);
    t.is(result.code, 0, result.stderr);
    t.regex(result.stdout, /Refreshing dataset events with append mode/);
    t.deepEqual(await rows(context, 'SELECT id FROM events ORDER BY id'), [{ id: 1 }, { id: 2 }]);
  });
});

test('append refresh adds only rows newer than the newest loaded, by time_column and time_format', async (t) => {
  const manifest = eventsManifest('      refresh_mode: append\n', '    time_column: at\n    time_format: unix_millis\n');
  await withRuntime(t, { manifest, files: { 'events.csv': 'id,at\n1,1000\n2,2000\n' } }, async (context) => {
    // Row 9 is older than the newest loaded (2000): an append refresh must not take it.
    writeFileSync(path.join(context.directory, 'events.csv'), 'id,at\n1,1000\n2,2000\n9,1500\n3,3000\n4,4000\n');
    t.is((await refresh(context, 'events')).status, 201);
    t.deepEqual(await rows(context, 'SELECT id FROM events ORDER BY id'), [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }]);
    t.is((await refresh(context, 'events')).status, 201);
    t.deepEqual(await rows(context, 'SELECT count(*)::INT AS n FROM events'), [{ n: 4 }], 'nothing newer: nothing added');
  });
});

test('append refresh with primary_key merges by key: upsert replaces, drop keeps the stored row', async (t) => {
  const manifest = `
datasets:
  - from: file:a.csv
    name: upserted
    acceleration:
      refresh_mode: append
      primary_key: id
      on_conflict:
        id: upsert
  - from: file:a.csv
    name: dropped
    acceleration:
      refresh_mode: append
      primary_key: id
      on_conflict:
        id: drop
`;
  await withRuntime(t, { manifest, files: { 'a.csv': 'id,v\n1,old\n2,old\n' } }, async (context) => {
    writeFileSync(path.join(context.directory, 'a.csv'), 'id,v\n2,new\n3,new\n');
    t.is((await refresh(context, 'upserted')).status, 201);
    t.is((await refresh(context, 'dropped')).status, 201);
    t.deepEqual(await rows(context, 'SELECT id, v FROM upserted ORDER BY id'), [{ id: 1, v: 'old' }, { id: 2, v: 'new' }, { id: 3, v: 'new' }]);
    t.deepEqual(await rows(context, 'SELECT id, v FROM dropped ORDER BY id'), [{ id: 1, v: 'old' }, { id: 2, v: 'old' }, { id: 3, v: 'new' }]);
  });
});

test('bad refresh requests are refused with DATASET_REFRESH_INVALID or BODY_INVALID_JSON', async (t) => {
  const manifest = eventsManifest('      enabled: true\n');
  await withRuntime(t, { manifest, files: { 'events.csv': 'id\n1\n' } }, async (context) => {
    const append = await refresh(context, 'events', { refresh_mode: 'append' });
    t.is(append.status, 400);
    const appendBody = ((await append.json()) as { error: { code: string; message: string } }).error;
    t.is(appendBody.code, 'DATASET_REFRESH_INVALID');
    t.regex(appendBody.message, /append needs time_column .* or acceleration\.primary_key/);
    const mode = await refresh(context, 'events', { refresh_mode: 'changes' });
    t.is(mode.status, 400);
    t.regex(((await mode.json()) as { error: { message: string } }).error.message, /refresh_mode "changes" is not accepted; use full or append/);
    const json = await refresh(context, 'events', '{not json');
    t.is(json.status, 400);
    t.is(((await json.json()) as { error: { code: string } }).error.code, 'BODY_INVALID_JSON');
    const notQuery = await refresh(context, 'events', { refresh_sql: 'DELETE FROM events' });
    t.is(notQuery.status, 500);
    t.deepEqual(await rows(context, 'SELECT count(*)::INT AS n FROM events'), [{ n: 1 }], 'a refresh_sql that is not a query changes nothing');
  });
});

for (const mode of ['memory', 'file'] as const) {
  test(`${mode} mode: queries during refreshes see the old rows or the new, never a mix or an empty table`, async (t) => {
    const version = (count: number, value: number) => `id,v\n${Array.from({ length: count }, (_, index) => `${index},${value}`).join('\n')}\n`;
    const manifest = eventsManifest(`      mode: ${mode}\n`);
    await withRuntime(t, { manifest, files: { 'events.csv': version(20_000, 1) } }, async (context) => {
      const file = path.join(context.directory, 'events.csv');
      const seen = new Set<string>();
      let refreshing = true;
      const readers = Array.from({ length: 3 }, async () => {
        while (refreshing) {
          const [row] = await rows<{ n: number; total: number }>(context, 'SELECT count(*)::INT AS n, sum(v)::INT AS total FROM events');
          seen.add(`${row!.n}:${row!.total}`);
        }
      });
      for (let round = 0; round < 8; round++) {
        writeFileSync(file, round % 2 === 0 ? version(30_000, 2) : version(20_000, 1));
        const response = await refresh(context, 'events');
        t.is(response.status, 201, await response.clone().text());
      }
      refreshing = false;
      await Promise.all(readers);
      t.true(seen.has('20000:20000') && seen.has('30000:60000'), 'the readers ran across the swaps and saw both versions');
      for (const state of seen) t.true(state === '20000:20000' || state === '30000:60000', `a query saw ${state}`);
    });
  });
}

test('interval refreshes that fail retry with backoff, keep serving the old rows and show the error', async (t) => {
  const manifest = eventsManifest('      refresh_check_interval: 1s\n      refresh_retry_max_attempts: 50\n');
  await withRuntime(t, { manifest, files: { 'events.csv': 'id\n1\n' } }, async (context) => {
    const file = path.join(context.directory, 'events.csv');
    const seen = invalidations(context);
    writeFileSync(file, 'id\n1\n2\n');
    await eventually(async () => (await rows<{ n: number }>(context, 'SELECT count(*)::INT AS n FROM events'))[0]!.n === 2);
    t.deepEqual(seen[0], { datasets: ['events'], reason: 'refresh' }, 'the interval refresh picked up the new rows and invalidated the cache');
    unlinkSync(file);
    await eventually(async () => (await datasetStatus(context, 'events')).error !== null);
    const failing = await datasetStatus(context, 'events');
    t.is(failing.status, 'Ready', 'a failed refresh keeps the dataset serving');
    t.regex(failing.error!, /events\.csv/);
    t.deepEqual(await rows(context, 'SELECT count(*)::INT AS n FROM events'), [{ n: 2 }], 'the previous rows are served');
    await eventually(async () => context.logs.some((record) => record.message === 'refresh will be retried' && Number(record.fields?.['attempt']) >= 2));
    writeFileSync(file, 'id\n1\n2\n3\n');
    await eventually(async () => (await datasetStatus(context, 'events')).error === null);
    t.deepEqual(await rows(context, 'SELECT count(*)::INT AS n FROM events'), [{ n: 3 }], 'a retry succeeded');
    t.true(context.logs.some((record) => record.level === 'error' && record.message === 'dataset refresh failed; previous data kept'));
  });
});

test('refresh_retry_max_attempts bounds the retries of a failing refresh', async (t) => {
  const manifest = eventsManifest('      refresh_check_interval: 1h\n      refresh_retry_max_attempts: 2\n');
  await withRuntime(t, { manifest, files: { 'events.csv': 'id\n1\n' } }, async (context) => {
    unlinkSync(path.join(context.directory, 'events.csv'));
    t.is((await refresh(context, 'events')).status, 500, 'a refresh asked for over HTTP reports its failure at once');
    t.is((await datasetStatus(context, 'events')).status, 'Ready');
  });
  // The source answers with an error at every read (error() raises when evaluated): the first
  // load fails, then is retried twice.
  const retried = eventsManifest(`      refresh_sql: SELECT * FROM events WHERE error('upstream unavailable') IS NULL\n      refresh_retry_max_attempts: 2\n`);
  await withRuntime(t, { manifest: retried, files: { 'events.csv': 'id\n1\n' } }, async (context) => {
    await eventually(async () => context.logs.some((record) => record.message === 'refresh retries exhausted; the previous data stays until the next scheduled refresh'));
    const attempts = context.logs.filter((record) => record.message === 'refresh will be retried').map((record) => Number(record.fields?.['attempt']));
    t.deepEqual(attempts, [1, 2]);
    t.is((await datasetStatus(context, 'events')).status, 'Error');
  });
});

test('a refresh_sql that never binds is retried a bounded number of times; a refresh_sql set by PATCH then loads', async (t) => {
  const manifest = eventsManifest('      refresh_sql: SELECT * FROM events WHERE no_such_column = 1\n');
  await withRuntime(t, { manifest, files: { 'events.csv': 'id\n1\n2\n' } }, async (context) => {
    await eventually(async () => context.logs.some((record) => record.message.startsWith('refresh_sql does not bind: retries stopped')), 120_000);
    const attempts = context.logs.filter((record) => record.message === 'refresh will be retried').map((record) => Number(record.fields?.['attempt']));
    t.deepEqual(attempts, [1, 2, 3, 4, 5], 'five retries with backoff, then none: the default retries until success');
    const failed = await datasetStatus(context, 'events');
    t.is(failed.status, 'Error');
    t.regex(failed.error!, /no_such_column/);

    const patched = await fetch(`${context.baseUrl}/v1/datasets/events/acceleration`, { method: 'PATCH', body: JSON.stringify({ refresh_sql: 'SELECT * FROM events WHERE id > 1' }) });
    t.is(patched.status, 200, await patched.text());
    t.is((await refresh(context, 'events')).status, 201);
    t.deepEqual(await rows(context, 'SELECT count(*)::INT AS n FROM events'), [{ n: 1 }]);
    t.is((await datasetStatus(context, 'events')).error, null);
  });
});
