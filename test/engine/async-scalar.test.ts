import test from 'ava';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { AsyncScalarFunction, type AsyncScalarSpec } from '../../core/engine/native/async-scalar.js';

/** A fresh in-memory engine with `spec` registered on one connection. */
async function connectionWith(...specs: AsyncScalarSpec[]): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  for (const spec of specs) new AsyncScalarFunction(spec).registerOn(connection);
  return connection;
}

test('values of every supported type go in and come out, NULLs included, over several chunks', async (t) => {
  let chunks = 0;
  const connection = await connectionWith({
    name: 'describe_row',
    parameterTypes: ['BIGINT', 'VARCHAR', 'INTEGER', 'DOUBLE', 'FLOAT', 'BOOLEAN'],
    returnType: 'VARCHAR',
    async evaluate(columns, rowCount) {
      chunks++;
      await new Promise((resolve) => setImmediate(resolve));
      return Array.from({ length: rowCount }, (_, row) => (columns[0]![row] === null ? null : columns.map((column) => `${typeof column[row]}:${String(column[row])}`).join('|')));
    },
  });
  const rows = (
    await connection.runAndReadAll(
      "SELECT describe_row(CASE WHEN i % 1000 = 0 THEN NULL ELSE i END, 'text-' || i || repeat('x', (i % 3) * 10), i::INTEGER, i / 4, (i / 2)::FLOAT, i % 2 = 0) AS v FROM range(5000) t(i) ORDER BY i",
    )
  ).getRows();
  t.is(rows.length, 5000);
  t.is(rows.filter(([value]) => value === null).length, 5);
  t.is(rows[1]![0], 'bigint:1|string:text-1xxxxxxxxxx|number:1|number:0.25|number:0.5|boolean:false');
  t.is(rows[4998]![0], 'bigint:4998|string:text-4998|number:4998|number:1249.5|number:2499|boolean:true');
  t.true(chunks >= 3, `5,000 rows arrive as several chunks (${chunks})`);

  const typed = await connectionWith(
    { name: 'as_bigint', parameterTypes: ['INTEGER'], returnType: 'BIGINT', evaluate: async (columns) => columns[0]!.map((value) => (value === null ? null : BigInt(value as number) * 10_000_000_000n)) },
    { name: 'as_double', parameterTypes: ['INTEGER'], returnType: 'DOUBLE', evaluate: async (columns) => columns[0]!.map((value) => (value as number) / 8) },
    { name: 'as_flag', parameterTypes: ['INTEGER'], returnType: 'BOOLEAN', evaluate: async (columns) => columns[0]!.map((value) => (value as number) > 1) },
    { name: 'as_int', parameterTypes: ['VARCHAR'], returnType: 'INTEGER', evaluate: async (columns) => columns[0]!.map((value) => (value as string).length) },
  );
  t.deepEqual((await typed.runAndReadAll("SELECT as_bigint(3), as_bigint(NULL::INTEGER), as_double(3), as_flag(2), as_int('héllo')")).getRows(), [[30_000_000_000n, null, 0.375, true, 5]]);
});

test('the event loop runs while a chunk waits for its values', async (t) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked!: () => void;
  const waiting = new Promise<void>((resolve) => (asked = resolve));
  const connection = await connectionWith({
    name: 'held',
    parameterTypes: ['INTEGER'],
    returnType: 'INTEGER',
    async evaluate(columns) {
      asked();
      await released;
      return columns[0]!.map((value) => (value as number) + 1);
    },
  });
  const query = connection.runAndReadAll('SELECT held(41) AS x');
  await waiting;
  // The engine's thread waits for `released`; this thread is free to do other work, here
  // resolve a timer and run another query on another connection.
  await new Promise((resolve) => setTimeout(resolve, 1));
  const other = await (await DuckDBInstance.create(':memory:')).connect();
  t.deepEqual((await other.runAndReadAll('SELECT 7 AS y')).getRows(), [[7]]);
  release();
  t.deepEqual((await query).getRows(), [[42]]);
});

test('wrong answers fail the query with the reason, and the connection stays usable', async (t) => {
  const connection = await connectionWith(
    { name: 'rejects', parameterTypes: ['INTEGER'], returnType: 'INTEGER', evaluate: async () => Promise.reject(new Error('[FUNCTION_CALL_FAILED] endpoint said no')) },
    { name: 'too_few', parameterTypes: ['INTEGER'], returnType: 'INTEGER', evaluate: async () => [1] },
    { name: 'not_an_int', parameterTypes: ['INTEGER'], returnType: 'INTEGER', evaluate: async (columns) => columns[0]!.map(() => 1.5) },
    { name: 'not_a_list', parameterTypes: ['INTEGER'], returnType: 'VARCHAR', evaluate: async () => 'nope' as unknown as unknown[] },
    { name: 'throws_now', parameterTypes: ['INTEGER'], returnType: 'VARCHAR', evaluate: () => { throw new Error('synchronous failure'); } },
  );
  const failure = async (sql: string) => (await t.throwsAsync(connection.runAndReadAll(sql)))!.message;
  t.regex(await failure('SELECT rejects(i::INTEGER) FROM range(3) t(i)'), /\[FUNCTION_CALL_FAILED\] endpoint said no/);
  t.regex(await failure('SELECT too_few(i::INTEGER) FROM range(3) t(i)'), /expected 3 values, got 1/);
  t.regex(await failure('SELECT not_an_int(i::INTEGER) FROM range(3) t(i)'), /value 0 does not fit the declared return type/);
  t.regex(await failure('SELECT not_a_list(i::INTEGER) FROM range(3) t(i)'), /expected 3 values, got 0/);
  t.regex(await failure('SELECT throws_now(i::INTEGER) FROM range(3) t(i)'), /synchronous failure/);
  t.deepEqual((await connection.runAndReadAll('SELECT 1 AS still_fine')).getRows(), [[1]]);
});
