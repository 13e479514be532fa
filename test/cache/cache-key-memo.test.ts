import test from 'ava';
import type { Principal, QueryRequest } from '../../core/pipeline/types.js';
import { StageClock } from '../../core/pipeline/query-stages.js';
import { CacheKeyBuilder } from '../../plugins/results-cache/cache-key.js';

/** A classified read as the pipeline hands it to the lookup; `plans` counts logical-plan requests. */
function request(sql: string, principal: string, options: { parameters?: unknown[]; headers?: Record<string, string>; plans?: { count: number } } = {}): QueryRequest {
  const caller: Principal = { id: principal, method: 'api-key', canWrite: false };
  return {
    id: 'q',
    sql,
    parameters: options.parameters ?? [],
    protocol: 'http',
    principal: caller,
    inbound: options.headers ? { protocol: 'http', route: '/v1/sql', method: 'POST', headers: options.headers, remoteAddress: '127.0.0.1', tls: undefined, public: false, write: false, principal: caller, responseHeaders: {} } : undefined,
    signal: new AbortController().signal,
    startTime: new Date(),
    kind: 'read',
    statementType: 'SELECT',
    datasets: ['orders'],
    state: new Map(),
    stages: new StageClock(0),
    logicalPlan: async () => {
      if (options.plans) options.plans.count += 1;
      return `PLAN OF ${sql.toLowerCase().replace(/\s+/g, ' ')}`;
    },
  };
}

/** The fake planner's plan of a text: case and spacing do not matter, as in the engine's. */
const planOf = async (sql: string) => `PLAN OF ${sql.toLowerCase().replace(/\s+/g, ' ')}`;

test('a parameterless query is keyed and hashed once per principal and text, until plans are forgotten', async (t) => {
  // A text the constants scanner cannot read (dollar quoting) is always planned (plan-identities.ts): the counts are the memo's.
  const keys = new CacheKeyBuilder('plan', planOf);
  const hashed: string[] = [];
  const hasher = (material: string) => {
    hashed.push(material);
    return `h${hashed.length}`;
  };
  const plans = { count: 0 };
  const first = await keys.hashed(request('SELECT $$1$$', 'apikey:alice', { plans }), hasher);
  const again = await keys.hashed(request('SELECT $$1$$', 'apikey:alice', { plans }), hasher);
  t.is(again, first, 'the same key object, not rebuilt');
  t.is(hashed.length, 1);
  t.is(plans.count, 1);
  const bob = await keys.hashed(request('SELECT $$1$$', 'apikey:bob', { plans }), hasher);
  t.not(bob.hash, first.hash, 'each principal its own key');
  t.true(bob.key.material.startsWith('apikey:bob\u0000plan\u0000'));
  t.is(plans.count, 1, 'the plan of a text is shared across principals');
  keys.forgetPlans();
  const afterRefresh = await keys.hashed(request('SELECT $$1$$', 'apikey:alice', { plans }), hasher);
  t.is(plans.count, 2, 'a refresh forgets plans and the keys built from them');
  t.is(afterRefresh.key.material, first.key.material);
  t.is(hashed.length, 3);
});

test('queries with parameters or a custom key are keyed every time (never memoised under the text alone)', async (t) => {
  const keys = new CacheKeyBuilder('sql', planOf);
  let hashes = 0;
  const hasher = (material: string) => `${++hashes}:${material.length}`;
  const one = await keys.hashed(request('SELECT $1', 'anonymous', { parameters: [1] }), hasher);
  const two = await keys.hashed(request('SELECT $1', 'anonymous', { parameters: [2] }), hasher);
  t.not(one.key.material, two.key.material);
  const custom = await keys.hashed(request('SELECT 1', 'anonymous', { headers: { 'quarry-cache-key': 'tile-7' } }), hasher);
  const plain = await keys.hashed(request('SELECT 1', 'anonymous', { headers: {} }), hasher);
  t.true(custom.key.custom);
  t.false(plain.key.custom, 'the custom-keyed request did not leave its key under the text');
  t.is(hashes, 4);
});
