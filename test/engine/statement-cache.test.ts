import { writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { StatementCache } from '../../core/engine/statement-cache.js';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import { withRuntime, type TestRuntime } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from '../access/access-fixtures.js';

/** Runs SQL over HTTP, past the results cache: every answer comes from the engine. */
async function rows(context: TestRuntime, sql: string): Promise<Array<Record<string, unknown>>> {
  const response = await context.sql(sql, { accept: 'application/json', headers: { 'cache-control': 'no-cache' } });
  if (response.status !== 200) throw new Error(`${sql}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Array<Record<string, unknown>>;
}

test('a kept statement is lent out once, the least recently kept is dropped past 64, and invalidate drops them all', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const cache = new StatementCache();
    const first = await connection.prepare('SELECT 1 AS one');
    cache.keep(connection, 'SELECT 1 AS one', first);
    t.is(cache.take(connection, 'SELECT 1 AS one'), first);
    t.is(cache.take(connection, 'SELECT 1 AS one'), undefined, 'lent out: not there until kept again');
    t.is(cache.reuses, 1);

    cache.keep(connection, 'SELECT 1 AS one', first);
    for (let index = 0; index < 64; index++) cache.keep(connection, `SELECT ${index + 2} AS n`, await connection.prepare(`SELECT ${index + 2} AS n`));
    t.is(cache.take(connection, 'SELECT 1 AS one'), undefined, 'the oldest of 65 was dropped');
    const newest = cache.take(connection, 'SELECT 65 AS n');
    t.truthy(newest);
    t.deepEqual((await newest!.runAndReadAll()).getRowObjectsJson(), [{ n: 65 }], 'a kept statement runs again');

    cache.keep(connection, 'SELECT 65 AS n', newest!);
    cache.invalidate();
    t.is(cache.take(connection, 'SELECT 65 AS n'), undefined, 'kept before invalidate: prepared again');
    const other = await instance.connect();
    t.is(cache.take(other, 'SELECT 2 AS n'), undefined, 'statements belong to their connection');
    other.closeSync();
    t.false(cache.accepts('x'.repeat(20_000)), 'very long texts are not kept');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

test('a repeated read runs its kept statement: parameters are bound anew, and a refresh that changed the columns is seen', async (t) => {
  const manifest = 'datasets:\n  - from: file:events.csv\n    name: events\n    acceleration:\n      enabled: true\n';
  await withRuntime(t, { manifest, files: { 'events.csv': 'id,region\n1,EU\n2,US\n' } }, async (context) => {
    const { engine } = context.runtime;
    const before = engine.preparedStatementReuses;
    t.deepEqual(await rows(context, 'SELECT * FROM events ORDER BY id'), [{ id: 1, region: 'EU' }, { id: 2, region: 'US' }]);
    t.deepEqual(await rows(context, 'SELECT * FROM events ORDER BY id'), [{ id: 1, region: 'EU' }, { id: 2, region: 'US' }]);
    t.is(engine.preparedStatementReuses, before + 1, 'the second run reused the statement');

    const answer = async (value: number) => {
      const prepared = await engine.prepare('SELECT $1::INTEGER + 1 AS next');
      const stream = await prepared.execute([value], new AbortController().signal);
      const values: number[] = [];
      for await (const batch of stream.batches) values.push(...(batch.getChild('next')!.toArray() as Int32Array));
      return values;
    };
    t.deepEqual(await answer(1), [2]);
    t.deepEqual(await answer(41), [42], 'the kept statement took the new parameter');

    writeFileSync(path.join(context.directory, 'events.csv'), 'id,region,amount\n3,EU,10\n');
    const refreshed = await fetch(`${context.baseUrl}/v1/datasets/events/acceleration/refresh`, { method: 'POST' });
    t.is(refreshed.status, 201, await refreshed.text());
    const prepared = await engine.prepare('SELECT * FROM events ORDER BY id');
    t.deepEqual(prepared.resultSchema.fields.map((field) => field.name), ['id', 'region', 'amount'], 'the schema a Flight client is told is the new one');
    prepared.close();
    t.deepEqual(await rows(context, 'SELECT * FROM events ORDER BY id'), [{ id: 3, region: 'EU', amount: 10 }]);
  });
});

test('a statement over a caller-scoped view is never kept: each caller sees only their own rows, however often it is asked', async (t) => {
  await withRuntime(t, { manifest: accessManifest(), files: ACCESS_FILES }, async (context) => {
    const ask = async (key: string) => {
      await taskHistory(context.runtime.hooks)!.flush();
      const response = await context.sql("SELECT input FROM runtime.task_history WHERE input LIKE 'SELECT ''mine%' ORDER BY input", { headers: { 'x-api-key': key, 'cache-control': 'no-cache' } });
      t.is(response.status, 200);
      return ((await response.json()) as Array<{ input: string }>).map((row) => row.input);
    };
    t.is((await context.sql("SELECT 'mine: writer'", { headers: { 'x-api-key': KEYS.writer } })).status, 200);
    const reusesBefore = context.runtime.engine.preparedStatementReuses;
    for (let round = 0; round < 3; round++) {
      t.deepEqual(await ask(KEYS.writer), ["SELECT 'mine: writer'"]);
      t.deepEqual(await ask(KEYS.reader), [], 'the reader sees none of the writer\'s queries');
    }
    t.is(context.runtime.engine.preparedStatementReuses, reusesBefore, 'no statement over the scoped view was reused');
  });
});

test('a kept statement hands over the same result schema each run; a parameter\'s type or a refresh gives a new one', async (t) => {
  const manifest = 'datasets:\n  - from: file:events.csv\n    name: events\n    acceleration:\n      enabled: true\n';
  await withRuntime(t, { manifest, files: { 'events.csv': 'id,region\n1,EU\n2,US\n' } }, async (context) => {
    const { engine } = context.runtime;
    const run = async (sql: string, parameters: unknown[] = []) => {
      const prepared = await engine.prepare(sql);
      // Before binding, `SELECT $1` has no result type to describe: asked only without parameters.
      const resultSchema = parameters.length === 0 ? prepared.resultSchema : undefined;
      const stream = await prepared.execute(parameters, new AbortController().signal);
      const values: unknown[] = [];
      for await (const batch of stream.batches) values.push(...batch.toArray().map((row) => row.toJSON()));
      return { schema: stream.schema, resultSchema, values };
    };
    const first = await run('SELECT * FROM events ORDER BY id');
    const second = await run('SELECT * FROM events ORDER BY id');
    t.is(second.schema, first.schema, 'the stream schema object is reused');
    t.is(second.resultSchema, first.resultSchema, 'so is the prepared schema Flight answers with');
    t.deepEqual(second.values, first.values);

    // A parameter's type decides the result's: never reused across runs.
    const text = await run('SELECT $1 AS value', ['text']);
    const number = await run('SELECT $1 AS value', [42]);
    t.not(number.schema, text.schema);
    t.deepEqual([String(text.schema.fields[0]!.type), text.values], ['Utf8', [{ value: 'text' }]]);
    t.deepEqual(number.values.length, 1);

    writeFileSync(path.join(context.directory, 'events.csv'), 'id,region,amount\n3,EU,10\n');
    const refreshed = await fetch(`${context.baseUrl}/v1/datasets/events/acceleration/refresh`, { method: 'POST' });
    t.is(refreshed.status, 201, await refreshed.text());
    const after = await run('SELECT * FROM events ORDER BY id');
    t.not(after.schema, first.schema);
    t.deepEqual(after.schema.fields.map((field) => field.name), ['id', 'region', 'amount']);
    t.deepEqual(after.values, [{ id: 3n, region: 'EU', amount: 10n }]);
  });
});
