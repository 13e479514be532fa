import test from 'ava';
import { withRuntime, type TestRuntime } from '../helpers/runtime.js';

/**
 * A full load with `orderBy` (what a cluster executor asks for its share) stores the rows in
 * that order: DuckDB keeps insertion order, so a plain scan returns them so, and the table's
 * zone maps let filters on the ordered columns skip row groups.
 */

async function storedOrder(context: TestRuntime, dataset: string): Promise<number[]> {
  // No ORDER BY: the rows come back in the order the table stores them.
  const response = await context.sql(`SELECT id FROM ${dataset}`, { accept: 'application/json', headers: { 'cache-control': 'no-cache' } });
  if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
  return ((await response.json()) as Array<{ id: number }>).map((row) => row.id);
}

const events = 'id,region\n5,US\n2,EU\n9,EU\n1,US\n7,APAC\n3,EU\n';

const manifest = `
datasets:
  - from: file:events.csv
    name: plain
    acceleration:
      enabled: true
  - from: file:events.csv
    name: keyed
    acceleration:
      enabled: true
      primary_key: id
`;

test('a full load with orderBy stores the rows in that order, with and without a primary key', async (t) => {
  await withRuntime(t, { manifest, files: { 'events.csv': events } }, async (context) => {
    t.deepEqual(await storedOrder(context, 'plain'), [5, 2, 9, 1, 7, 3], 'without orderBy the source order is kept');
    for (const dataset of ['plain', 'keyed']) {
      await context.runtime.engine.refresh(dataset, { refreshMode: 'full', orderBy: 'region, id' });
      t.deepEqual(await storedOrder(context, dataset), [7, 2, 3, 9, 1, 5], `${dataset}: stored by region, then id`);
      await context.runtime.engine.refresh(dataset, { refreshMode: 'full', refreshSql: `SELECT * FROM ${dataset} WHERE region <> 'APAC'`, orderBy: 'id DESC' });
      t.deepEqual(await storedOrder(context, dataset), [9, 5, 3, 2, 1], `${dataset}: refresh_sql applies, then the order`);
    }
  });
});
