import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tableFromArrays } from 'apache-arrow';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { sourceSelect } from '../../core/engine/acceleration/refresh-statements.js';
import { checkClusterManifest } from '../../plugins/scheduler/cluster-config.js';
import { fromArrowIpc, toArrowIpc } from '../../plugins/scheduler/writes/arrow-ipc.js';
import { ownedRowsWithWritesSql } from '../../plugins/scheduler/writes/share-sql.js';
import { WriteLog, writeObjectKey } from '../../plugins/scheduler/writes/write-log.js';
import type { Manifest } from '../../core/manifest/types.js';

const rows = (ids: bigint[]) => {
  const table = tableFromArrays({ id: BigInt64Array.from(ids) });
  return toArrowIpc(table.schema, table.batches);
};

test('the write log keeps accepted writes in order, lists them by partition, and forgets removed ones (objects included)', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'quarry-write-log-'));
  try {
    const store = new FileObjectStore(root);
    const log = new WriteLog(store);
    const first = await log.record('orders', [{ partitions: ['[0]', '[1]'], rows: 2, body: rows([1n, 2n]) }, { partitions: ['[2]'], rows: 1, body: rows([3n]) }]);
    const second = await log.record('orders', [{ partitions: ['[1]'], rows: 1, body: rows([4n]) }]);
    t.deepEqual((await log.entries('orders')).map((entry) => entry.id), [...first, ...second].map((entry) => entry.id));
    t.deepEqual((await log.entries('orders', new Set(['[1]']))).map((entry) => entry.rows), [2, 1], 'entries touching partition [1], in order');
    t.deepEqual(await log.entries('other'), []);
    const body = fromArrowIpc(await log.body('orders', second[0]!.id));
    t.deepEqual(body.batches.flatMap((batch) => batch.toArray().map((row) => row.toJSON()['id'])), [4n]);

    await log.remove('orders', [first[1]!.id]);
    t.deepEqual((await log.entries('orders')).map((entry) => entry.id), [first[0]!.id, second[0]!.id]);
    t.is(await store.get(writeObjectKey('orders', first[1]!.id)), undefined, 'the removed entry\'s object is deleted');

    // Two writers (two schedulers) recording at once: every entry lands, none is lost to a race.
    const other = new WriteLog(new FileObjectStore(root));
    await Promise.all(Array.from({ length: 12 }, (_, index) => (index % 2 === 0 ? log : other).record('orders', [{ partitions: ['[3]'], rows: 1, body: rows([BigInt(100 + index)]) }])));
    t.is((await log.entries('orders', new Set(['[3]']))).length, 12);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** Runs a share's refresh_sql as the engine does (the source bound to the dataset's name). */
async function loadShare(primaryKey: string | undefined, onConflict: 'upsert' | 'drop' | undefined, partitions: number[][] = [[0], [1]], buckets = 2): Promise<Array<Record<string, unknown>>> {
  const manifest = {
    datasets: [{ name: 'orders', from: 'file:x', access: 'read_write', acceleration: { enabled: true, partition_by: `bucket(${buckets}, id)`, ...(primaryKey ? { primary_key: primaryKey } : {}), ...(onConflict ? { on_conflict: { id: onConflict } } : {}) } }],
  } as unknown as Manifest;
  const [dataset] = checkClusterManifest(manifest, 'executor', false).datasets;
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run("CREATE TABLE source AS SELECT * FROM (VALUES (1, 'source'), (2, 'source'), (3, 'source')) AS t(id, label)");
    await connection.run('CREATE SCHEMA quarry_cluster');
    // Two writes: id 2 twice (first then second), id 4 once.
    await connection.run("CREATE TABLE quarry_cluster.writes AS SELECT * FROM (VALUES (2, 'first write', 1), (4, 'first write', 1), (2, 'second write', 2)) AS t(id, label, quarry_write_order)");
    const rules = { primaryKey: primaryKey ? [primaryKey] : [], onConflict };
    const select = sourceSelect('orders', 'source', ownedRowsWithWritesSql(dataset!, partitions, 'quarry_cluster.writes', rules));
    return (await connection.runAndReadAll(`SELECT id, label FROM (${select}) ORDER BY id, label`)).getRowObjectsJS();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

test('a share loads its source rows plus accepted writes; a primary key keeps the latest write (upsert) or the first row (drop, none)', async (t) => {
  t.deepEqual(await loadShare(undefined, undefined), [
    { id: 1, label: 'source' }, { id: 2, label: 'first write' }, { id: 2, label: 'second write' }, { id: 2, label: 'source' }, { id: 3, label: 'source' }, { id: 4, label: 'first write' },
  ]);
  t.deepEqual(await loadShare('id', 'upsert'), [{ id: 1, label: 'source' }, { id: 2, label: 'second write' }, { id: 3, label: 'source' }, { id: 4, label: 'first write' }]);
  t.deepEqual(await loadShare('id', 'drop'), [{ id: 1, label: 'source' }, { id: 2, label: 'source' }, { id: 3, label: 'source' }, { id: 4, label: 'first write' }]);
  t.deepEqual(await loadShare('id', undefined), [{ id: 1, label: 'source' }, { id: 2, label: 'source' }, { id: 3, label: 'source' }, { id: 4, label: 'first write' }]);
});

test('a share takes from a write-log entry only the rows of its own partitions (an entry may span partitions that moved since)', async (t) => {
  // Three buckets: ids 1 and 4 fall in one, 2 and 3 in the others (DuckDB's hash()).
  const all = await loadShare(undefined, undefined, [[0], [1], [2]], 3);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const bucketOf = new Map<number, number>();
  try {
    for (const id of [1, 2, 3, 4]) bucketOf.set(id, Number((await connection.runAndReadAll(`SELECT CAST(hash(CAST(${id} AS INTEGER)) % 3 AS INTEGER) AS b`)).getRowObjectsJS()[0]!['b']));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  t.is(new Set(bucketOf.values()).size, 3, 'the ids fall in every bucket');
  t.is(all.length, 6, 'all source rows and written rows');
  for (const bucket of [0, 1, 2]) {
    const share = await loadShare(undefined, undefined, [[bucket]], 3);
    t.deepEqual(share, all.filter((row) => bucketOf.get(Number(row['id'])) === bucket), `bucket ${bucket}: its source rows and its written rows only`);
  }
});
