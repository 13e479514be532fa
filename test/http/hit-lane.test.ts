import test from 'ava';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import type { QueryOutcome, QueryRequest } from '../../core/pipeline/types.js';
import { withRuntime } from '../helpers/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { cacheSetup, eventually, queryLogPlugin, testKeysPlugin } from '../cache/cache-helpers.js';
import { accessManifest, ACCESS_FILES, KEYS } from '../access/access-fixtures.js';

const QUERY = 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status';

/** Counts what the hit lane answered (its observers see only its own answers), and adds a header to them. */
function laneWatcher(): QuarryPlugin & { answered: string[] } {
  const answered: string[] = [];
  return {
    name: 'lane-watcher',
    answered,
    apply(runtime) {
      runtime.httpHitLane.observe({
        headers: (_request, headers) => {
          headers['x-lane-seen'] = 'yes';
        },
        answered: (request, status, elapsedMs) => {
          if (elapsedMs >= 0) answered.push(`${request.method} ${request.url} ${status}`);
        },
      });
    },
  };
}

/** Refuses, at query.before, any query whose request carries `x-refuse: yes`; asynchronously, so the lane's answer waits for it. */
function refuseOnHeader(): QuarryPlugin {
  return {
    name: 'refuse-on-header',
    apply(runtime) {
      runtime.hooks.query.before.tapPromise({ name: 'refuse-on-header', stage: STAGE.AUTHORIZE }, async (request) => {
        await new Promise((resolve) => setImmediate(resolve));
        if (request.inbound?.headers['x-refuse'] === 'yes') throw new QuarryError('ACCESS_DENIED', 'refused by the test plugin');
      });
    },
  };
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function post(baseUrl: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body, headers: { accept: 'application/json', 'content-type': 'text/plain', ...headers } });
  const all: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'date') all[name] = value;
  });
  return { status: response.status, headers: all, body: await response.text() };
}

test('from the second hit on, hits are answered in front of fastify with the route\'s headers and bytes, and reported once each', async (t) => {
  const lane = laneWatcher();
  const finished: Array<{ request: QueryRequest; outcome: QueryOutcome }> = [];
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 1h', { plugins: [lane, queryLogPlugin(finished)] }), async ({ baseUrl }) => {
    const miss = await post(baseUrl, QUERY);
    t.is(miss.headers['x-cache'], 'MISS');
    const routeHit = await post(baseUrl, QUERY);
    t.is(routeHit.headers['x-cache'], 'HIT');
    t.deepEqual(lane.answered, [], 'the first hit encodes the body, through the route');
    const laneHit = await post(baseUrl, QUERY);
    t.deepEqual(lane.answered, ['POST /v1/sql 200']);
    t.is(laneHit.body, miss.body);
    const { 'x-lane-seen': seen, ...laneHeaders } = laneHit.headers;
    t.is(seen, 'yes', 'observers add headers to the lane\'s answers');
    t.deepEqual(laneHeaders, routeHit.headers, 'the same headers as the route sends for a hit');

    await eventually(() => finished.length === 3);
    t.deepEqual(finished.map(({ request, outcome }) => [request.protocol, outcome.status, outcome.cacheStatus, outcome.rows]), [
      ['http', 'ok', 'MISS', 6],
      ['http', 'ok', 'HIT', 6],
      ['http', 'ok', 'HIT', 6],
    ]);
    t.is(finished[2]!.request.statementType, 'SELECT', 'the lane\'s query carries the remembered classification');
    t.deepEqual(finished[2]!.request.datasets, ['orders']);
  });
});

test('requests the lane does not answer go through fastify unchanged, and none is reported twice', async (t) => {
  const lane = laneWatcher();
  const finished: Array<{ request: QueryRequest; outcome: QueryOutcome }> = [];
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 1h', { plugins: [lane, queryLogPlugin(finished)] }), async ({ baseUrl }) => {
    await post(baseUrl, QUERY);
    await post(baseUrl, QUERY);
    t.is((await post(baseUrl, QUERY)).headers['x-cache'], 'HIT');
    t.is(lane.answered.length, 1);

    // Cache-Control changes the lookup: the route decides.
    t.is((await post(baseUrl, QUERY, { 'cache-control': 'no-cache' })).headers['x-cache'], 'BYPASS');
    // A JSON body, another format's first hit, a custom key: the route.
    const json = await post(baseUrl, JSON.stringify({ sql: QUERY }), { 'content-type': 'application/json' });
    t.is(json.headers['x-cache'], 'HIT');
    t.is((await post(baseUrl, QUERY, { accept: 'text/csv' })).headers['x-cache'], 'HIT');
    t.is((await post(baseUrl, QUERY, { 'quarry-cache-key': 'orders-by-status' })).headers['x-cache'], 'MISS');
    // Bad SQL and a body that is not UTF-8, read by the lane, answered by the route.
    const bad = await post(baseUrl, 'SELEC 1');
    t.is(bad.status, 400);
    t.regex(bad.body, /"code":"SQL_INVALID"/);
    const notText = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: Buffer.from([0xff, 0xfe, 0x41]), headers: { 'content-type': 'text/plain' } });
    t.is(notText.status, 400);
    t.regex(await notText.text(), /BODY_INVALID_UTF8/);
    t.is(lane.answered.length, 1, 'none of these was the lane\'s');

    // The CSV body is kept now: the next CSV hit is the lane's.
    const csv = await post(baseUrl, QUERY, { accept: 'text/csv' });
    t.regex(csv.body, /^status,n\r?\n/);
    t.is(lane.answered.length, 2);
    await eventually(() => finished.length === 9);
    t.is(finished.length, 9, 'one query.after per query that ran or was answered');
  });
});

test('the lane admits like the route: refusals are the route\'s, entries stay per principal', async (t) => {
  const lane = laneWatcher();
  const finished: Array<{ request: QueryRequest; outcome: QueryOutcome }> = [];
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 1h', { plugins: [testKeysPlugin(), refuseOnHeader(), lane, queryLogPlugin(finished)] }), async ({ baseUrl }) => {
    const alice = { 'x-api-key': 'alice' };
    for (let index = 0; index < 3; index++) await post(baseUrl, QUERY, alice);
    t.is(lane.answered.length, 1, 'alice\'s third request is the lane\'s');
    const aliceHit = await post(baseUrl, QUERY, alice);
    t.is(aliceHit.headers['results-cache-scope'], 'user');
    t.is(aliceHit.headers['vary'], 'X-API-Key, Authorization');

    // Another principal never gets alice's entry, on the lane or off it.
    t.is((await post(baseUrl, QUERY, { 'x-api-key': 'bob' })).headers['x-cache'], 'MISS');
    t.is(lane.answered.length, 2);

    // The anonymous caller (this stand-in plugin lets it through) has a namespace of its own.
    t.is((await post(baseUrl, QUERY)).headers['x-cache'], 'MISS');

    // A query.before refusal met on the lane is answered once, as the route answers it, and reported once.
    const before = finished.length;
    const refused = await post(baseUrl, QUERY, { ...alice, 'x-refuse': 'yes' });
    t.is(refused.status, 403);
    t.regex(refused.body, /"code":"ACCESS_DENIED".*refused by the test plugin/);
    t.is(lane.answered.length, 2);
    await eventually(() => finished.length === before + 1);
    const last = finished.at(-1)!;
    t.is(last.outcome.status, 'error');
    t.is(last.outcome.error?.code, 'ACCESS_DENIED');
    t.is((await post(baseUrl, QUERY, alice)).headers['x-cache'], 'HIT', 'the lane still answers after a refusal');
    t.is(lane.answered.length, 3);
  });
});

test('with the default plugins, lane answers carry CORS headers, count in http_requests and task history, and a bad key gets the route\'s 401', async (t) => {
  const runtime = '\n  cors:\n    enabled: true\n    allowed_origins: ["https://app.example"]\n  caching:\n    sql_results:\n      item_ttl: 1h';
  const lane = laneWatcher();
  await withRuntime(t, { manifest: accessManifest({ runtime }), files: ACCESS_FILES, bundle: [...defaultPlugins(), lane] }, async ({ baseUrl, runtime: quarry }) => {
    const sql = 'SELECT count(*) AS n FROM events';
    const reader = { 'x-api-key': KEYS.reader, origin: 'https://app.example' };
    const requests = () => quarry.metrics.value('http_requests', { method: 'POST', path: '/v1/sql', status: '200' }) ?? 0;
    for (let index = 0; index < 2; index++) await post(baseUrl, sql, reader);
    const counted = requests();
    const routeHit = await post(baseUrl, sql, { ...reader, 'cache-control': 'max-stale' });
    const laneHit = await post(baseUrl, sql, reader);
    t.is(laneHit.headers['x-cache'], 'HIT');
    t.deepEqual(lane.answered, ['POST /v1/sql 200'], 'only the last hit was the lane\'s');
    t.is(laneHit.headers['access-control-allow-origin'], 'https://app.example');
    t.is(laneHit.headers['access-control-expose-headers'], routeHit.headers['access-control-expose-headers']);
    t.is(laneHit.headers['vary'], routeHit.headers['vary'], 'the results cache\'s Vary and CORS\'s Origin, as on the route');
    t.is(requests(), counted + 2, 'the lane\'s answer is counted like the route\'s');

    const wrongKey = await post(baseUrl, sql, { 'x-api-key': 'not-a-key' });
    const wrongKeyJson = await post(baseUrl, JSON.stringify({ sql }), { 'x-api-key': 'not-a-key', 'content-type': 'application/json' });
    t.is(wrongKey.status, 401);
    t.deepEqual(wrongKey, wrongKeyJson, 'refused by the lane\'s admission exactly as by the route\'s');

    await eventually(async () => {
      const rows = await quarry.engine.runInternal(
        "SELECT count(*) AS n FROM runtime.task_history WHERE input = $1 AND labels['results_cache_status'] = 'HIT'",
        [sql],
      );
      return Number(rows[0]?.['n']) === 3;
    });
    t.pass('every hit, the lane\'s included, has its task history row');
  });
});
