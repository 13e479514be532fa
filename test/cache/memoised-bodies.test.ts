import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';
import type { QueryOutcome, QueryRequest } from '../../core/pipeline/types.js';
import { cacheSetup, eventually, queryLogPlugin } from './cache-helpers.js';

const QUERY = 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status';

async function raw(baseUrl: string, accept: string, sql = QUERY): Promise<{ cache: string; type: string; body: Buffer }> {
  const response = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: sql, headers: { accept, 'content-type': 'text/plain' } });
  return { cache: response.headers.get('x-cache') ?? '', type: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()) };
}

test('a hit sends the bytes encoded at its first hit, per format, and their size counts in max_size', async (t) => {
  const finished: Array<{ request: QueryRequest; outcome: QueryOutcome }> = [];
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 1h', { plugins: [queryLogPlugin(finished)] }), async ({ baseUrl, runtime }) => {
    const size = () => runtime.metrics.value('results_cache_size_bytes')!;
    const miss = await raw(baseUrl, 'application/json');
    t.is(miss.cache, 'MISS');
    const storedBytes = size();
    const firstHit = await raw(baseUrl, 'application/json');
    t.is(firstHit.cache, 'HIT');
    t.deepEqual(firstHit.body, miss.body, 'the hit encodes the same JSON the engine answer had');
    t.is(size(), storedBytes + firstHit.body.length, 'the kept JSON body is counted in the entry');
    const secondHit = await raw(baseUrl, 'application/json');
    t.deepEqual(secondHit.body, miss.body);
    t.is(size(), storedBytes + firstHit.body.length, 'a body is kept once');

    const csvMiss = await raw(baseUrl, 'text/csv');
    t.is(csvMiss.cache, 'HIT', 'the same entry answers CSV');
    t.regex(csvMiss.type, /text\/csv/);
    t.regex(csvMiss.body.toString(), /^status,n\r?\n/);
    t.deepEqual((await raw(baseUrl, 'text/csv')).body, csvMiss.body);
    t.is(size(), storedBytes + firstHit.body.length + csvMiss.body.length);

    // query.after still hears every row of answers sent from kept bodies.
    await eventually(() => finished.length === 5);
    t.deepEqual(finished.map(({ outcome }) => [outcome.cacheStatus, outcome.status, outcome.rows]), [
      ['MISS', 'ok', 6],
      ['HIT', 'ok', 6],
      ['HIT', 'ok', 6],
      ['HIT', 'ok', 6],
      ['HIT', 'ok', 6],
    ]);
  });
});

test('a write evicts the entry with its kept bodies: the next answer is fresh', async (t) => {
  await withRuntime(t, cacheSetup('caching:\n  sql_results:\n    item_ttl: 1h'), async ({ baseUrl }) => {
    const sql = 'SELECT count(*) AS n FROM events';
    t.is((await raw(baseUrl, 'application/json', sql)).cache, 'MISS');
    t.is((await raw(baseUrl, 'application/json', sql)).body.toString(), '[{"n":2}]');
    const write = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: "INSERT INTO events VALUES (3, 'three')" });
    t.is(write.status, 200);
    const after = await raw(baseUrl, 'application/json', sql);
    t.is(after.cache, 'MISS');
    t.is(after.body.toString(), '[{"n":3}]');
  });
});
