import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { statementSurface } from '../../core/engine/statement-surface.js';

// The engine's parse of each text is read through one serializer statement kept per
// connection: every text must get its own parse, whatever ran on the connection before.

test('texts serialized one after another on one connection each get their own surface', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const plain = await statementSurface(connection, 'SELECT upper(\'a\') AS a');
    t.true(plain.parsed);
    t.true(plain.functions.has('upper'));
    t.deepEqual(plain.fileReads, []);

    const reader = await statementSurface(connection, "SELECT * FROM read_csv('/etc/passwd')");
    t.true(reader.parsed);
    t.false(reader.functions.has('upper'), 'nothing of the text before');
    t.deepEqual(reader.fileReads, [{ via: 'read_csv()', path: '/etc/passwd' }]);

    // A statement the engine does not serialize is read from its text, conservatively.
    const pivot = await statementSurface(connection, 'PIVOT t ON k USING sum(v)');
    t.false(pivot.parsed);
    t.true(pivot.functions.has('sum'));

    // A failed statement on the connection between two texts changes nothing.
    await t.throwsAsync(connection.run('SELECT * FROM no_such_table'));
    const after = await statementSurface(connection, "SELECT * FROM 'data/x.parquet' JOIN t USING (id)");
    t.true(after.parsed);
    t.deepEqual(after.fileReads, [{ via: 'FROM', path: 'data/x.parquet' }]);
    t.true(after.tables.has('t'));

    // Texts that differ only in a literal: each its own parse.
    const [first, second] = [await statementSurface(connection, "SELECT * FROM read_parquet('a.parquet')"), await statementSurface(connection, "SELECT * FROM read_parquet('b.parquet')")];
    t.deepEqual([first.fileReads[0]?.path, second.fileReads[0]?.path], ['a.parquet', 'b.parquet']);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

test('a connection whose serializer cannot run falls back to the text, and another connection still parses', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const closed = await instance.connect();
  const open = await instance.connect();
  try {
    t.true((await statementSurface(closed, 'SELECT 1')).parsed, 'the serializer is kept on the connection');
    closed.closeSync();
    const fallback = await statementSurface(closed, "SELECT * FROM read_text('/etc/hosts')");
    t.false(fallback.parsed, 'no parse: read from the text');
    t.deepEqual(fallback.fileReads, [{ via: 'read_text()', path: undefined }], 'a reader named in the text counts as a computed path (refused)');
    t.true((await statementSurface(open, "SELECT * FROM read_text('/etc/hosts')")).parsed);
  } finally {
    open.closeSync();
    instance.closeSync();
  }
});
