import test from 'ava';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import { withRuntime, type TestRuntime } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from './access-fixtures.js';

/**
 * runtime.task_history holds every caller's SQL text: each caller sees its own rows, an
 * `:admin` key (or a runtime without auth) every row, over every door.
 */

const ADMIN_KEY = 'admin-7c2e9a41';
const manifest = accessManifest().replace(`        - "${KEYS.colon}"`, `        - "${KEYS.colon}"\n        - ${ADMIN_KEY}:admin`);

async function inputs(context: TestRuntime, key: string): Promise<string[]> {
  await taskHistory(context.runtime.hooks)!.flush();
  const response = await context.sql("SELECT input FROM runtime.task_history WHERE task = 'sql_query' AND input LIKE 'SELECT ''marker%' ORDER BY input", { headers: { 'x-api-key': key } });
  assertOk(response);
  return ((await response.json()) as Array<{ input: string }>).map((row) => row.input);
}

function assertOk(response: Response): void {
  if (response.status !== 200) throw new Error(`task_history query answered ${response.status}`);
}

async function run(context: TestRuntime, sql: string, key: string): Promise<void> {
  assertOk(await context.sql(sql, { headers: { 'x-api-key': key } }));
}

test('each caller sees its own queries in runtime.task_history; an :admin key sees every caller\'s, and the runtime\'s own tasks', async (t) => {
  await withRuntime(t, { manifest, files: ACCESS_FILES, flight: true }, async (context) => {
    await run(context, "SELECT 'marker reader'", KEYS.reader);
    await run(context, "SELECT 'marker writer'", KEYS.writer);
    await run(context, "SELECT 'marker admin'", ADMIN_KEY);
    t.deepEqual(await inputs(context, KEYS.reader), ["SELECT 'marker reader'"]);
    t.deepEqual(await inputs(context, KEYS.writer), ["SELECT 'marker writer'"]);
    t.deepEqual(await inputs(context, ADMIN_KEY), ["SELECT 'marker admin'", "SELECT 'marker reader'", "SELECT 'marker writer'"]);
    const refreshes = async (key: string) => {
      const response = await context.sql("SELECT count(*) AS n FROM runtime.task_history WHERE task = 'accelerated_refresh'", { headers: { 'x-api-key': key } });
      return ((await response.json()) as Array<{ n: number }>)[0]!.n;
    };
    t.true((await refreshes(ADMIN_KEY)) > 0, 'the admin sees the runtime\'s own loads');
    t.is(await refreshes(KEYS.reader), 0, 'a caller sees no task it did not run');

    // With a parameter the engine binds the statement again when it runs: the scope holds then too.
    const parameterised = await context.sql(JSON.stringify({ sql: 'SELECT count(*) AS n FROM runtime.task_history WHERE input LIKE $1', parameters: ["SELECT 'marker%"] }), { headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' } });
    t.deepEqual(await parameterised.json(), [{ n: 3 }]);
    const readerParameterised = await context.sql(JSON.stringify({ sql: 'SELECT count(*) AS n FROM runtime.task_history WHERE input LIKE $1', parameters: ["SELECT 'marker%"] }), { headers: { 'x-api-key': KEYS.reader, 'content-type': 'application/json' } });
    t.deepEqual(await readerParameterised.json(), [{ n: 1 }]);
    // The connection goes back to the pool without the caller: the runtime's own read sees every row, a later caller only its own.
    t.deepEqual(await inputs(context, KEYS.writer), ["SELECT 'marker writer'"]);

    // Over Flight, the same scope.
    const client = FlightSqlClient.connect({ endpoint: `grpc://${context.runtime.flightEndpoint}` });
    try {
      await client.handshake('', KEYS.reader);
      const table = (await client.query("SELECT DISTINCT input FROM runtime.task_history WHERE input LIKE 'SELECT ''marker%'")).table;
      t.deepEqual(table.getChild('input')?.toArray(), ["SELECT 'marker reader'"]);
    } finally {
      client.close();
    }
  });
});

test('without auth, the anonymous caller sees every row', async (t) => {
  await withRuntime(t, { manifest: accessManifest({ keys: false }), files: ACCESS_FILES }, async (context) => {
    assertOk(await context.sql("SELECT 'marker one'"));
    await taskHistory(context.runtime.hooks)!.flush();
    const response = await context.sql("SELECT count(*) AS n FROM runtime.task_history WHERE input = 'SELECT ''marker one'''");
    t.deepEqual(await response.json(), [{ n: 1 }]);
  });
});
