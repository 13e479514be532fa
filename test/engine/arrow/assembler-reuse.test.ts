import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch } from 'apache-arrow';
import test from 'ava';
import { openBatchStream } from '../../../core/engine/arrow/index.js';
import { assemblerReuses, type ResultShape } from '../../../core/engine/arrow/record-batch-stream.js';

let connection: DuckDBConnection;

test.before(async () => {
  const instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  await connection.run('CREATE TABLE t (id INTEGER, label VARCHAR, amount DECIMAL(10,2), seen BOOLEAN, tags INTEGER[])');
});

/** Plain rows; a DECIMAL as its unscaled digits (Arrow's value object prints them), a list as an array. */
const rows = (batches: RecordBatch[]) =>
  batches.flatMap((batch) =>
    batch.toArray().map((row) => {
      const plain = row.toJSON() as Record<string, unknown>;
      return { ...plain, amount: plain['amount'] === null ? null : String(plain['amount']), tags: plain['tags'] === null ? null : [...(plain['tags'] as Iterable<number>)] };
    }),
  );

/** Runs the statement as the engine does, handing its shape to the next run (ResultShapes). */
async function run(sql: string, shape: ResultShape | undefined, read: 'all' | 'first' = 'all') {
  const opened = await openBatchStream(await connection.stream(sql), shape ? { shape } : {});
  const batches: RecordBatch[] = [];
  if (read === 'all') for await (const batch of opened.batches) batches.push(batch);
  else {
    const iterator = opened.batches[Symbol.asyncIterator]();
    batches.push((await iterator.next()).value as RecordBatch);
    await iterator.return!();
  }
  return { shape: opened.shape, batches };
}

// The tests share the table: serial. A kept assembler carries nothing from one result to the next: nulls, longer strings, list
// lengths and row counts of one run must not show in the next.
test.serial('an assembler kept from a run of a statement assembles the next run exactly, nulls and lengths included', async (t) => {
  const sql = 'SELECT * FROM t ORDER BY id';
  await connection.run("INSERT INTO t VALUES (1, NULL, 1.50, NULL, [1, 2, 3]), (2, 'a much longer label than the others', NULL, true, NULL)");
  const first = await run(sql, undefined);
  t.deepEqual(rows(first.batches), [
    { id: 1, label: null, amount: '150', seen: null, tags: [1, 2, 3] },
    { id: 2, label: 'a much longer label than the others', amount: null, seen: true, tags: null },
  ]);
  const reusesBefore = assemblerReuses();
  await connection.run('DELETE FROM t');
  await connection.run("INSERT INTO t VALUES (3, 'x', 2.25, false, []), (4, 'y', 0.01, true, [9]), (5, 'z', 10.00, false, [7, 8])");
  const second = await run(sql, first.shape);
  t.is(assemblerReuses(), reusesBefore + 1, 'the second run took the first run\'s assembler');
  t.deepEqual(rows(second.batches), [
    { id: 3, label: 'x', amount: '225', seen: false, tags: [] },
    { id: 4, label: 'y', amount: '1', seen: true, tags: [9] },
    { id: 5, label: 'z', amount: '1000', seen: false, tags: [7, 8] },
  ]);
  t.true(second.batches.every((batch) => batch.schema === second.shape.schema), 'every batch carries the stream\'s own schema');
  // The first run's batches own their memory: the reuse did not overwrite them.
  t.is((rows(first.batches)[1] as Record<string, unknown> | undefined)?.['label'], 'a much longer label than the others');
});

test.serial('an assembler whose result was abandoned, or that made large batches, is not kept; the next run starts with a new one', async (t) => {
  await connection.run('DELETE FROM t');
  // Four batches of 65,536 rows at most: the pump waits for the consumer after the first.
  await connection.run('INSERT INTO t SELECT i, \'r\' || i, i, i % 2 = 0, [i] FROM range(200000) r(i)');
  const sql = 'SELECT * FROM t ORDER BY id';
  const first = await run(sql, undefined, 'first');
  const reusesBefore = assemblerReuses();
  const second = await run(sql, first.shape);
  t.is(assemblerReuses(), reusesBefore, 'nothing was kept from the abandoned run');
  t.is(second.batches.reduce((total, batch) => total + batch.numRows, 0), 200000);
  const third = await run(sql, first.shape);
  t.is(assemblerReuses(), reusesBefore, 'the batches of the second run were megabytes: its assembler was not kept');
  t.deepEqual(rows(third.batches).slice(0, 2), [
    { id: 0, label: 'r0', amount: '0', seen: true, tags: [0] },
    { id: 1, label: 'r1', amount: '100', seen: false, tags: [1] },
  ]);
  t.is(third.batches.reduce((total, batch) => total + batch.numRows, 0), 200000);
  // A small result (of another statement) is kept again.
  const small = 'SELECT * FROM t WHERE id < 3 ORDER BY id';
  const firstSmall = await run(small, undefined);
  await run(small, firstSmall.shape);
  t.is(assemblerReuses(), reusesBefore + 1);
});
