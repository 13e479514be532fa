import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';
import { load } from '../manifest/helpers.js';

/** `acceleration.indexes` as Spice writes them: real engine indexes, made again after every load. */

const manifest = (mode: string) => `
datasets:
  - from: file:data/orders.csv
    name: orders
    acceleration:
      enabled: true
      mode: ${mode}
      primary_key: id
      indexes:
        customer: enabled
        "(customer, day)": enabled
        code: unique
`;
const files = { 'data/orders.csv': 'id,customer,day,code\n1,ann,2024-01-01,A1\n2,bob,2024-01-02,B1\n3,ann,2024-01-03,A2\n' };

for (const mode of ['memory', 'file']) {
  test(`indexes are created on the accelerated table (${mode} mode) and again after a refresh`, async (t) => {
    await withRuntime(t, { manifest: manifest(mode), files }, async ({ runtime, baseUrl, sql }) => {
      const indexes = async () =>
        (await runtime.engine.runInternal("SELECT index_name, is_unique, sql FROM duckdb_indexes() WHERE table_name = 'orders' ORDER BY index_name")).map((row) => [row['index_name'], row['is_unique'], /\(([^)]*)\)\s*;?$/.exec(String(row['sql']))?.[1]]);
      const expected = [
        ['orders_index_1', false, 'customer'],
        ['orders_index_2', false, 'customer, "day"'],
        ['orders_index_3', true, 'code'],
      ];
      t.deepEqual(await indexes(), expected);
      t.is((await fetch(`${baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' })).status, 201);
      t.deepEqual(await indexes(), expected, 'the refreshed table has them too');
      t.deepEqual(await (await sql("SELECT id FROM orders WHERE customer = 'ann' ORDER BY id", { accept: 'application/json' })).json(), [{ id: 1 }, { id: 3 }]);
    });
  });
}

test('a unique index the source rows break fails the load with the engine\'s reason', async (t) => {
  const text = manifest('memory');
  await withRuntime(t, { manifest: text, files: { 'data/orders.csv': 'id,customer,day,code\n1,ann,2024-01-01,A1\n2,bob,2024-01-02,A1\n' } }, async ({ baseUrl }) => {
    const [dataset] = (await (await fetch(`${baseUrl}/v1/datasets`)).json()) as Array<{ status: string; error: string }>;
    t.is(dataset!.status, 'Error');
    t.regex(dataset!.error, /duplicate key|[Uu]nique|constraint/i);
  });
});

test('an index key that is not a column or a list of columns fails validation with its path', async (t) => {
  const expression = await t.throwsAsync(load('datasets:\n  - from: file:x.csv\n    name: x\n    acceleration:\n      indexes:\n        "lower(a)": enabled\n'));
  t.regex(expression!.message, /datasets\[0\]\.acceleration\.indexes\.lower\(a\): dataset "x": index "lower\(a\)" must name a column/);
  const kind = await t.throwsAsync(load('datasets:\n  - from: file:x.csv\n    name: x\n    acceleration:\n      indexes:\n        b: sometimes\n'));
  t.regex(kind!.message, /datasets\[0\]\.acceleration\.indexes\.b: .*expected enabled .*or unique/);
});
