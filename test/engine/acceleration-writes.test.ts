import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { Field, Int64, makeData, RecordBatch, Schema, Struct, Utf8, vectorFromArray } from 'apache-arrow';
import { withRuntime, writeManifestDirectory } from '../helpers/runtime.js';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { withFlight } from '../flight/flight-helpers.js';

/**
 * Writes into accelerated datasets: SQL INSERT and Flight ingest, memory and file mode,
 * primary-key conflict rules, and durability of file mode across a `kill -9` of a real
 * quarryd process.
 */

const fileModeManifest = (options: { access: 'read' | 'read_write'; extra?: string }) => `
datasets:
  - from: file:events.csv
    name: events
    access: ${options.access}
    acceleration:
      mode: file
${options.extra ?? ''}`;

async function sqlJson(baseUrl: string, sql: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: sql, headers: { accept: 'application/json' } });
  return { status: response.status, body: await response.json() };
}

async function countRowsInFile(file: string, table: string): Promise<number> {
  const instance = await DuckDBInstance.create(file);
  try {
    const connection = await instance.connect();
    const reader = await connection.runAndReadAll(`SELECT count(*)::INT AS n FROM "${table}"`);
    return Number(reader.getRowObjectsJS()[0]!['n']);
  } finally {
    instance.closeSync();
  }
}

test('SQL INSERT into a read_write file-mode dataset lands in its acceleration file and fires invalidation', async (t) => {
  let directory = '';
  await withRuntime(t, { manifest: fileModeManifest({ access: 'read_write' }), files: { 'events.csv': 'id,label\n1,one\n' } }, async (context) => {
    directory = context.directory;
    const invalidated: string[][] = [];
    context.runtime.hooks.cache.invalidate.tap('test', (invalidation) => void invalidated.push([...invalidation.datasets]));
    const insert = await sqlJson(context.baseUrl, "INSERT INTO events VALUES (2, 'two'), (3, 'three')");
    t.is(insert.status, 200, JSON.stringify(insert.body));
    t.deepEqual((await sqlJson(context.baseUrl, 'SELECT id FROM events ORDER BY id')).body, [{ id: 1 }, { id: 2 }, { id: 3 }]);
    t.deepEqual(invalidated, [['events']]);
    // Stop the runtime before reading its file: DuckDB lets one process hold a database file.
    await context.runtime.stop();
    t.is(await countRowsInFile(path.join(directory, '.quarry/acceleration/events.duckdb'), 'events'), 3);
  });
});

test('writes to read-only datasets are refused with WRITE_NOT_ALLOWED, in file and memory mode', async (t) => {
  const manifest = `${fileModeManifest({ access: 'read' })}  - from: file:events.csv
    name: memory_events
    acceleration:
      enabled: true
`;
  await withRuntime(t, { manifest, files: { 'events.csv': 'id,label\n1,one\n' } }, async (context) => {
    for (const name of ['events', 'memory_events']) {
      const refused = await sqlJson(context.baseUrl, `INSERT INTO ${name} VALUES (2, 'two')`);
      t.is(refused.status, 403, name);
      const error = (refused.body as { error: { code: string; message: string } }).error;
      t.is(error.code, 'WRITE_NOT_ALLOWED');
      t.regex(error.message, new RegExp(`dataset "${name}" is read-only; set access: read_write`));
    }
    t.deepEqual((await sqlJson(context.baseUrl, 'SELECT count(*)::INT AS n FROM events')).body, [{ n: 1 }]);
  });
});

function eventsBatch(rows: Array<[bigint, string]>): RecordBatch {
  const schema = new Schema([new Field('id', new Int64(), true), new Field('label', new Utf8(), true)]);
  return new RecordBatch(schema, makeData({
    type: new Struct(schema.fields), length: rows.length, nullCount: 0,
    children: [vectorFromArray(rows.map(([id]) => id), new Int64()).data[0]!, vectorFromArray(rows.map(([, label]) => label), new Utf8()).data[0]!],
  }));
}

test('on_conflict applies to SQL INSERT and to Flight ingest: upsert replaces, drop keeps', async (t) => {
  const manifest = `
datasets:
  - from: file:events.csv
    name: upserted
    access: read_write
    acceleration:
      mode: file
      primary_key: id
      on_conflict:
        id: upsert
  - from: file:events.csv
    name: dropped
    access: read_write
    acceleration:
      primary_key: [id]
      on_conflict:
        id: drop
  - from: file:events.csv
    name: strict
    access: read_write
    acceleration:
      primary_key: id
`;
  await withFlight(t, { manifest, files: { 'events.csv': 'id,label\n1,one\n2,two\n' } }, async ({ client, baseUrl }) => {
    for (const name of ['upserted', 'dropped']) {
      t.is((await sqlJson(baseUrl, `INSERT INTO ${name} VALUES (1, 'sql'), (3, 'sql')`)).status, 200, name);
      const batch = eventsBatch([[2n, 'flight'], [4n, 'flight'], [4n, 'flight again']]);
      t.is(await client.ingest(name, { schema: batch.schema, batches: [batch] }), 3n, name);
    }
    const labels = async (name: string) => ((await sqlJson(baseUrl, `SELECT id, label FROM ${name} ORDER BY id`)).body as Array<{ id: number; label: string }>).map((row) => `${row.id}:${row.label}`);
    const upserted = await labels('upserted');
    t.deepEqual(upserted.slice(0, 3), ['1:sql', '2:flight', '3:sql']);
    t.regex(upserted[3]!, /^4:flight/, 'one row per key');
    t.is(upserted.length, 4);
    const dropped = await labels('dropped');
    t.deepEqual(dropped.slice(0, 3), ['1:one', '2:two', '3:sql']);
    t.is(dropped.length, 4);
    const conflict = await sqlJson(baseUrl, "INSERT INTO strict VALUES (1, 'dup')");
    t.is(conflict.status, 400);
    t.regex(JSON.stringify(conflict.body), /primary key/i, 'without on_conflict a duplicate key is an error');
  });
});

async function waitReady(daemon: Daemon): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${daemon.baseUrl}/v1/ready`).catch(() => undefined);
    if (response?.status === 200) return;
    if (Date.now() > deadline) throw new Error(`quarryd not ready:\n${daemon.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('an acknowledged write survives kill -9; a restart serves the file (auto), or refreshes it (always)', async (t) => {
  const directory = writeManifestDirectory({ manifest: fileModeManifest({ access: 'read_write' }), files: { 'events.csv': 'id,label\n1,one\n' } });
  const daemons: Daemon[] = [];
  try {
    const first = await startDaemon([directory]);
    daemons.push(first);
    await waitReady(first);
    const insert = await sqlJson(first.baseUrl, "INSERT INTO events VALUES (2, 'acknowledged')");
    t.is(insert.status, 200, JSON.stringify(insert.body));
    first.child.kill('SIGKILL');
    await first.exited;

    // The source changes while the runtime is down; `auto` serves the file, not the source.
    writeFileSync(path.join(directory, 'events.csv'), 'id,label\n1,one\n5,five\n');
    const second = await startDaemon([directory]);
    daemons.push(second);
    await waitReady(second);
    t.deepEqual((await sqlJson(second.baseUrl, 'SELECT id, label FROM events ORDER BY id')).body, [{ id: 1, label: 'one' }, { id: 2, label: 'acknowledged' }]);
    t.regex(second.output(), /dataset served from its acceleration file/);
    second.child.kill('SIGKILL');
    await second.exited;

    // `always`: served from the file at once, then a full refresh replaces it with the source.
    writeFileSync(path.join(directory, 'quarry.yaml'), fileModeManifest({ access: 'read_write', extra: '      refresh_on_startup: always\n' }));
    const third = await startDaemon([directory]);
    daemons.push(third);
    await waitReady(third);
    t.regex(third.output(), /dataset served from its acceleration file dataset=events refresh_on_startup=always/, 'ready before the refresh, on the file');
    const deadline = Date.now() + 30_000;
    let ids: unknown;
    do {
      ids = (await sqlJson(third.baseUrl, 'SELECT id FROM events ORDER BY id')).body;
      if (JSON.stringify(ids) === JSON.stringify([{ id: 1 }, { id: 5 }])) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < deadline);
    t.deepEqual(ids, [{ id: 1 }, { id: 5 }]);
  } finally {
    for (const daemon of daemons) if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGKILL');
    await Promise.all(daemons.map((daemon) => daemon.exited));
    rmSync(directory, { recursive: true, force: true });
  }
});
