import test from 'ava';
import { DuckDBInstance } from '@duckdb/node-api';
import { KeptTextFunction } from '../../core/engine/kept-text-function.js';
import { logicalPlanText } from '../../core/engine/logical-plan.js';

// One statement per connection serves every text: the engine reads its bound value when the
// run starts on a worker thread, so calls made at once must not see each other's text.

test('texts sent at once on one connection each get the answer for their own text', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const serializer = new KeptTextFunction('SELECT json_serialize_sql($1::VARCHAR)');
    const texts = Array.from({ length: 64 }, (_, index) => `SELECT ${index * 7919 + 100003} AS n`);
    const answers = await Promise.all(texts.map((text) => serializer.apply(connection, text)));
    answers.forEach((answer, index) => {
      const constant = (JSON.parse(answer) as { statements: Array<{ node: { select_list: Array<{ value: { value: number } }> } }> }).statements[0]!.node.select_list[0]!.value.value;
      t.is(constant, index * 7919 + 100003, `answer ${index}`);
    });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});

test('a kept planner sees the catalog as it is at each call, and reports what does not plan', async (t) => {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run('CREATE TABLE t AS SELECT 1 AS a');
    const before = await logicalPlanText(connection, 'SELECT * FROM t');
    t.false(before.includes('"DECIMAL'));
    await connection.run('DROP TABLE t');
    await connection.run('CREATE TABLE t AS SELECT 1 AS a, 2.5 AS b');
    const after = await logicalPlanText(connection, 'SELECT * FROM t');
    t.true(after.includes('"DECIMAL'), 'the column added since is in the plan');
    await connection.run('DROP TABLE t');
    const error = await t.throwsAsync(logicalPlanText(connection, 'SELECT * FROM t'));
    t.regex(error.message, /Table with name t does not exist/);
    // The same texts planned as literals, as before the planner was kept: the same plan.
    await connection.run('CREATE TABLE t AS SELECT 1 AS a');
    const literal = await connection.runAndReadAll("SELECT json_serialize_plan('SELECT * FROM t WHERE a = ''x''')");
    t.is(await logicalPlanText(connection, "SELECT * FROM t WHERE a = 'x'"), String(literal.getRows()[0]![0]).replace(/"query_location":\d+,?/g, ''));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
});
