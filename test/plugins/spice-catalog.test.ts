import test from 'ava';
import { QUICKSTART_MANIFEST, withRuntime } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from '../access/access-fixtures.js';

/** Spice's names beside Quarry's: spice.public.<dataset> and spice.runtime.task_history. */

const rows = async (response: Response) => {
  if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
  return response.json() as Promise<Array<Record<string, unknown>>>;
};

test('spice.public.<dataset> reads the dataset, follows its refreshes, and is cached and invalidated as the dataset', async (t) => {
  // An hour's item_ttl: the default second can pass between two queries on a loaded machine.
  const manifest = `${QUICKSTART_MANIFEST}runtime:\n  caching:\n    sql_results:\n      item_ttl: 1h\n`;
  await withRuntime(t, { manifest, withQuickstartData: true }, async ({ sql, baseUrl }) => {
    t.deepEqual(await rows(await sql('SELECT count(*) AS n FROM spice.public.orders', { accept: 'application/json' })), [{ n: 5000 }]);
    t.deepEqual(await rows(await sql('SELECT count(*) AS n FROM spice.public.customers', { accept: 'application/json' })), [{ n: 500 }], 'a dataset read live too');
    t.deepEqual(
      await rows(await sql('SELECT count(*) AS n FROM spice.public.orders o JOIN customers c USING (customer_id)', { accept: 'application/json' })),
      await rows(await sql('SELECT count(*) AS n FROM orders o JOIN customers c USING (customer_id)', { accept: 'application/json' })),
      'Spice\'s names and Quarry\'s mix in one query',
    );
    const again = await sql('SELECT count(*) AS n FROM spice.public.orders', { accept: 'application/json' });
    t.is(again.headers.get('x-cache'), 'HIT');
    t.is((await fetch(`${baseUrl}/v1/datasets/orders/acceleration/refresh`, { method: 'POST' })).status, 201);
    t.is((await sql('SELECT count(*) AS n FROM spice.public.orders', { accept: 'application/json' })).headers.get('x-cache'), 'MISS', 'the refresh of orders dropped the cached answer');
    const missing = await sql('SELECT * FROM spice.public.nope');
    t.is(missing.status, 400);
    t.regex(await missing.text(), /TABLE_NOT_FOUND/);
  });
});

test('through spice names a read-only key still cannot write, and task history stays per caller', async (t) => {
  await withRuntime(t, { manifest: accessManifest(), files: ACCESS_FILES }, async ({ sql }) => {
    const as = (key: string) => ({ accept: 'application/json', headers: { 'x-api-key': key } });
    const refused = await sql("INSERT INTO spice.public.events VALUES (3, 'three')", as(KEYS.reader));
    t.is(refused.status, 403);
    t.regex(await refused.text(), /WRITE_NOT_ALLOWED/);
    t.is((await sql('DELETE FROM spice.public.events', as(KEYS.writer))).status, 403, 'a view of the dataset takes no DELETE, whoever asks');
    await rows(await sql("SELECT 'from the writer' AS marker", as(KEYS.writer)));
    // Task history is written in the background: wait until the writer sees its own row (a
    // loaded machine read before the write once), then ask as the reader.
    const ownRow = async () => rows(await sql("SELECT count(*) > 0 AS seen FROM spice.runtime.task_history WHERE input LIKE '%from the writer%'", as(KEYS.writer)));
    for (let deadline = Date.now() + 30_000; JSON.stringify(await ownRow()) !== '[{"seen":true}]' && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 100));
    t.deepEqual(await ownRow(), [{ seen: true }], 'the writer sees its own query');
    const seen = await rows(await sql("SELECT count(*) AS n FROM spice.runtime.task_history WHERE input LIKE '%from the writer%'", as(KEYS.reader)));
    t.deepEqual(seen, [{ n: 0 }], 'the reader does not see the writer\'s queries');
  });
});
