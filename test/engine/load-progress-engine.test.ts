import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { LoadProgress, rowCountOf } from '../../core/engine/load-progress.js';
import { AsyncScalarFunction } from '../../core/engine/native/async-scalar.js';
import { localFileBytes } from '../../core/engine/source-files.js';

/**
 * The `reading` phase of a load: the engine's own progress (DuckDB's query progress on the
 * load connection) read while a real statement runs. An asynchronous scalar function makes
 * each 2,048-row chunk wait 2 ms, so the statement takes at least a second whatever the
 * machine's speed. (Holding it still does not work: the engine updates its progress between
 * tasks, on the thread a held chunk would block.)
 */
test('while the engine reads a file into a table, the progress shows rows of the total, percent, the share of bytes and an ETA', async (t) => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-progress-'));
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  try {
    const file = path.join(directory, 'numbers.parquet');
    const setup = await instance.connect();
    await setup.run(`COPY (SELECT range::INTEGER AS id FROM range(1000000)) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 10000)`);
    setup.closeSync();
    const sourceBytes = localFileBytes({ kind: 'engine', tableExpression: '', allowedPaths: [file], allowedDirectories: [] });
    t.is(sourceBytes, statSync(file).size);
    t.is(localFileBytes({ kind: 'engine', tableExpression: '', allowedPaths: [], allowedDirectories: [directory] }), sourceBytes, 'a directory counts its files');

    const connection = await instance.connect();
    await connection.run('SET enable_progress_bar = true');
    await connection.run('SET enable_progress_bar_print = false');
    new AsyncScalarFunction({
      name: 'slowed',
      parameterTypes: ['INTEGER'],
      returnType: 'INTEGER',
      evaluate: async (columns) => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        return columns[0]!;
      },
    }).registerOn(connection);

    const progress = new LoadProgress('refresh', () => connection.progress, () => sourceBytes);
    progress.reading();
    t.like(progress.snapshot(), { kind: 'refresh', phase: 'reading', rows_read: null, percent: null, bytes_read: null, eta_seconds: null }, 'nothing runs yet');
    let done = false;
    const running = connection.runAndReadAll(`CREATE TABLE numbers AS SELECT slowed(id) AS id FROM read_parquet('${file}')`).finally(() => {
      done = true;
    });
    // Every snapshot taken while it runs; the checks below use one taken mid-file.
    const snapshots: Array<ReturnType<LoadProgress['snapshot']>> = [];
    while (!done) {
      snapshots.push(progress.snapshot());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const result = await running;
    const snapshot = snapshots.find((candidate) => candidate.percent !== null && candidate.percent > 0 && candidate.percent < 100);
    if (!snapshot) return t.fail(`no snapshot mid-file among ${snapshots.length}: ${JSON.stringify(snapshots.map((candidate) => candidate.percent))}`);
    t.true(snapshot.percent! > 0 && snapshot.percent! < 100, `mid-file: ${snapshot.percent}%`);
    t.true(Math.abs(snapshot.rows_total! - 1000000) <= 10, `Parquet: the engine knows the row count (its own total counts a few rows of other steps: ${snapshot.rows_total})`);
    t.true(snapshot.rows_read! > 0 && snapshot.rows_read! < 1000000);
    t.is(snapshot.bytes_total, sourceBytes ?? null);
    // The share of the file read: the percent of its bytes (the percent shown is rounded to 0.1).
    t.true(Math.abs(snapshot.bytes_read! - (sourceBytes! * snapshot.percent!) / 100) <= sourceBytes! / 1000 + 1, `${snapshot.bytes_read} bytes at ${snapshot.percent}%`);
    t.not(snapshot.eta_seconds, null);
    t.is(rowCountOf(result), 1000000, 'CREATE TABLE AS answers the rows it wrote');
    t.like(progress.finished(rowCountOf(result)), { kind: 'refresh', rows: 1000000, bytes: sourceBytes });
    connection.closeSync();
  } finally {
    instance.closeSync();
    rmSync(directory, { recursive: true, force: true });
  }
});
