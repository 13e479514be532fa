import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';
import { load } from '../manifest/helpers.js';

/** Spice's retention keys: expired rows leave the accelerated table at every check. */

const day = 24 * 60 * 60 * 1000;
const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();
const files = {
  'data/events.csv': `id,at,kind\n1,${iso(10 * day)},click\n2,${iso(3 * day)},spam\n3,${iso(60_000)},click\n4,${iso(2 * day)},view\n5,${iso(60_000)},spam\n`,
};

test('rows older than retention_period and rows retention_sql selects are deleted at each check', async (t) => {
  const manifest = `
datasets:
  - from: file:data/events.csv
    name: events
    time_column: at
    time_format: timestamptz
    acceleration:
      enabled: true
      retention_check_enabled: true
      retention_period: 4d
      retention_check_interval: 50ms
      retention_sql: DELETE FROM events WHERE kind = 'spam'
`;
  await withRuntime(t, { manifest, files }, async ({ sql, logs }) => {
    const ids = async () => ((await (await sql('SELECT id FROM events ORDER BY id', { accept: 'application/json' })).json()) as Array<{ id: number }>).map((row) => row.id);
    // Checks run every 50 ms once the dataset has loaded: wait for the log line, not a clock.
    while (!logs.some((record) => record.message === 'retention deleted expired rows')) await new Promise((resolve) => setTimeout(resolve, 20));
    t.deepEqual(await ids(), [3, 4], 'row 1 is 10 days old (period 4d); rows 2 and 5 are spam');
    t.like(logs.find((record) => record.message === 'retention deleted expired rows')!.fields, { dataset: 'events', rows: 3 });
  });
});

test('retention rules are checked with the manifest, each naming the dataset', async (t) => {
  const base = (acceleration: string, timeColumn = '') => `datasets:\n  - from: file:x.csv\n    name: x\n${timeColumn}    acceleration:\n${acceleration}`;
  const noColumn = await t.throwsAsync(load(base('      retention_check_enabled: true\n      retention_period: 7d\n')));
  t.regex(noColumn!.message, /acceleration\.retention_period: dataset "x": retention_period needs time_column/);
  const nothing = await t.throwsAsync(load(base('      retention_check_enabled: true\n')));
  t.regex(nothing!.message, /acceleration\.retention_check_enabled: dataset "x": retention_check_enabled needs retention_period \(with time_column\) or retention_sql/);
  const other = await t.throwsAsync(load(base('      retention_sql: DELETE FROM y WHERE true\n')));
  t.regex(other!.message, /acceleration\.retention_sql: dataset "x": retention_sql must be DELETE FROM x WHERE <condition>/);
  await t.notThrowsAsync(load(base('      retention_check_enabled: true\n      retention_period: 7d\n      retention_check_interval: 1h\n', '    time_column: at\n')));
});

test('refresh_data_window loads only the rows within the window by time_column, at every load', async (t) => {
  const manifest = `
datasets:
  - from: file:data/events.csv
    name: events
    time_column: at
    time_format: timestamptz
    acceleration:
      enabled: true
      refresh_data_window: 5d
`;
  await withRuntime(t, { manifest, files }, async ({ sql, baseUrl }) => {
    const ids = async () => ((await (await sql('SELECT id FROM events ORDER BY id', { accept: 'application/json', headers: { 'cache-control': 'no-cache' } })).json()) as Array<{ id: number }>).map((row) => row.id);
    t.deepEqual(await ids(), [2, 3, 4, 5], 'row 1 (10 days old) is outside the 5-day window');
    t.is((await fetch(`${baseUrl}/v1/datasets/events/acceleration/refresh`, { method: 'POST' })).status, 201);
    t.deepEqual(await ids(), [2, 3, 4, 5], 'a refresh keeps to the window');
  });
  const error = await t.throwsAsync(load('datasets:\n  - from: file:x.csv\n    name: x\n    acceleration:\n      refresh_data_window: 1d\n'));
  t.regex(error!.message, /acceleration\.refresh_data_window: dataset "x": refresh_data_window needs time_column/);
});
