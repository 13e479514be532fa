import { DuckDBInstance } from '@duckdb/node-api';
import test from 'ava';
import { flushAppender } from '../../core/engine/native/appender-flush.js';

// The appender's flush runs on a worker thread (native/duckdb-appender-flush.c): the rows land,
// a constraint violation rejects with DuckDB's message, and anything but an appender is refused.

test('a flushed appender\'s rows are in the table, and the event loop ran while it flushed', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run('CREATE TABLE t (id BIGINT, label VARCHAR)');
  const appender = await connection.createAppender('t');
  for (let i = 0; i < 5000; i++) {
    appender.appendBigInt(BigInt(i));
    appender.appendVarchar(`row ${i}`);
    appender.endRow();
  }
  let ticked = false;
  setImmediate(() => (ticked = true));
  await flushAppender(appender);
  appender.closeSync();
  t.true(ticked, 'the flush did not hold the event loop');
  const rows = await (await connection.run('SELECT count(*), max(label) FROM t')).getRowsJS();
  t.deepEqual(rows, [[5000n, 'row 999']]);
  connection.closeSync();
  instance.closeSync();
});

test('a flush DuckDB refuses rejects with its message; a non-appender is refused before any work', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  await connection.run('CREATE TABLE keyed (id INTEGER PRIMARY KEY)');
  const appender = await connection.createAppender('keyed');
  for (const id of [1, 2, 2]) {
    appender.appendInteger(id);
    appender.endRow();
  }
  await t.throwsAsync(flushAppender(appender), { message: /PRIMARY KEY|constraint|Duplicate key/i });
  t.throws(() => flushAppender({ appender: {} } as never), { message: /appender external/ });
  t.throws(() => flushAppender({ appender: (connection as unknown as { connection: unknown }).connection } as never), { message: /appender external/ });
  connection.closeSync();
  instance.closeSync();
});
