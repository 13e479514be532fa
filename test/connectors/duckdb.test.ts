import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { withRuntime } from '../helpers/runtime.js';
import { datasetStatuses, jsonRows, manifestWith } from './helpers.js';

/** A real DuckDB database file, written by DuckDB and closed (so the runtime can open it). */
async function databaseFile(statements: string): Promise<{ bytes: Buffer; cleanup: () => void }> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-duckdb-'));
  const file = path.join(directory, 'source.duckdb');
  const instance = await DuckDBInstance.create(file);
  const connection = await instance.connect();
  await connection.run(statements);
  connection.closeSync();
  instance.closeSync();
  const { readFileSync } = await import('node:fs');
  return { bytes: readFileSync(file), cleanup: () => rmSync(directory, { recursive: true, force: true }) };
}

const SOURCE = `CREATE SCHEMA sales;
  CREATE TABLE sales.orders AS SELECT range AS id, range % 3 AS region, CAST(range * 1.5 AS DECIMAL(10,2)) AS amount FROM range(100);
  CREATE TABLE notes (id INTEGER, body VARCHAR); INSERT INTO notes VALUES (1, 'hello');`;

test('duckdb: live and accelerated datasets over one attached file; types kept; lockdown still allows it', async (t) => {
  const source = await databaseFile(SOURCE);
  const manifest = manifestWith(`  - from: duckdb:sales.orders
    name: orders
    params:
      duckdb_open: data/source.duckdb
  - from: duckdb:notes
    name: notes
    params:
      duckdb_open: data/source.duckdb
    acceleration:
      enabled: true`);
  try {
    await withRuntime(t, { manifest, files: { 'data/source.duckdb': source.bytes } }, async ({ sql, baseUrl }) => {
      const statuses = await datasetStatuses(baseUrl);
      t.is(statuses.get('orders')?.status, 'Ready');
      t.is(statuses.get('notes')?.status, 'Ready');
      t.deepEqual(await jsonRows(await sql('SELECT count(*) AS n, CAST(sum(amount) AS VARCHAR) AS total, typeof(amount) AS kind FROM orders WHERE region = 1 GROUP BY kind')), [
        { n: 33, total: '2425.50', kind: 'DECIMAL(10,2)' },
      ]);
      t.deepEqual(await jsonRows(await sql('SELECT body FROM notes')), [{ body: 'hello' }]);
      // User SQL cannot attach or read other files: lockdown applies after the attach.
      t.false((await sql(`SELECT * FROM read_csv('/etc/passwd')`)).ok);
    });
  } finally {
    source.cleanup();
  }
});

test('duckdb: bad params, a missing file and a missing table put the dataset in error with clear messages', async (t) => {
  const source = await databaseFile(SOURCE);
  const manifest = manifestWith(`  - from: duckdb:notes
    name: typo
    params:
      duckdb_file: data/source.duckdb
  - from: duckdb:notes
    name: missing
    params:
      duckdb_open: data/nowhere.duckdb
  - from: duckdb:sales.nosuch
    name: notable
    params:
      duckdb_open: data/source.duckdb`);
  try {
    await withRuntime(t, { manifest, files: { 'data/source.duckdb': source.bytes } }, async ({ baseUrl }) => {
      const statuses = await datasetStatuses(baseUrl);
      t.regex(statuses.get('typo')?.error ?? '', /params\.duckdb_file is not a parameter of duckdb: datasets; accepted: duckdb_open/);
      t.regex(statuses.get('missing')?.error ?? '', /params\.duckdb_open names .*nowhere\.duckdb, which is not an existing file/);
      t.regex(statuses.get('notable')?.error ?? '', /nosuch/);
      for (const name of ['typo', 'missing', 'notable']) t.is(statuses.get(name)?.status, 'Error');
    });
  } finally {
    source.cleanup();
  }
});
