import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';

test('plugins can keep system tables with runInternal; users read them but cannot write them', async (t) => {
  await withRuntime(t, { manifest: 'datasets: []\n' }, async ({ runtime, sql }) => {
    await runtime.engine.runInternal('CREATE SCHEMA IF NOT EXISTS runtime');
    await runtime.engine.runInternal('CREATE TABLE runtime.notes (id BIGINT, text VARCHAR)');
    await runtime.engine.runInternal('INSERT INTO runtime.notes VALUES ($1, $2)', [1, 'first']);
    t.deepEqual(await runtime.engine.runInternal('SELECT id, text FROM runtime.notes'), [{ id: 1n, text: 'first' }]);
    const read = await sql('SELECT text FROM runtime.notes', { accept: 'application/json' });
    t.deepEqual(await read.json(), [{ text: 'first' }]);
    t.is((await sql("INSERT INTO runtime.notes VALUES (2, 'x')")).status, 403);
  });
});

test('connection initializers register per-connection functions for every query', async (t) => {
  const { DuckDBScalarFunction, INTEGER } = await import('@duckdb/node-api');
  await withRuntime(t, { manifest: 'datasets: []\n' }, async ({ runtime, sql }) => {
    runtime.engine.addConnectionInitializer(async (connection) => {
      connection.registerScalarFunction(
        DuckDBScalarFunction.create({
          name: 'plus_one',
          returnType: INTEGER,
          parameterTypes: [INTEGER],
          mainFunction: (info, input, output) => {
            const values = input.getColumnVector(0);
            for (let row = 0; row < input.rowCount; row++) output.setItem(row, (values.getItem(row) as number) + 1);
            output.flush();
          },
        }),
      );
    });
    const answers = await Promise.all([1, 2, 3].map((n) => sql(`SELECT plus_one(${n}) AS x`, { accept: 'application/json' }).then((r) => r.json())));
    t.deepEqual(answers, [[{ x: 2 }], [{ x: 3 }], [{ x: 4 }]]);
  });
});
