import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';
import { ask, cacheSetup, testKeysPlugin } from './cache-helpers.js';

const QUERY = 'SELECT id, label FROM events ORDER BY id';
const as = (key: string, extra: Record<string, string> = {}) => ({ headers: { 'x-api-key': key, ...extra } });

test('with auth, entries are namespaced per principal: one key\'s results are never served to another', async (t) => {
  await withRuntime(t, cacheSetup('', { plugins: [testKeysPlugin()] }), async (context) => {
    const alice = await ask(context, QUERY, as('alice'));
    t.is(alice.cache, 'MISS');
    t.is(alice.headers.get('results-cache-scope'), 'user');
    t.is(alice.headers.get('vary'), 'X-API-Key, Authorization');
    t.is((await ask(context, QUERY, as('alice'))).cache, 'HIT');
    t.is((await ask(context, QUERY, as('bob'))).cache, 'MISS', 'bob has his own namespace');
    t.is((await ask(context, QUERY)).cache, 'MISS', 'so has the anonymous caller');
    t.is((await ask(context, QUERY, as('bob'))).cache, 'HIT');
  });
});

test('a custom key is namespaced too: it cannot reach another principal\'s entry', async (t) => {
  await withRuntime(t, cacheSetup('', { plugins: [testKeysPlugin()] }), async (context) => {
    const secret = await ask(context, "SELECT 'alice only' AS secret", as('alice', { 'quarry-cache-key': 'tile' }));
    t.is(secret.cache, 'MISS');
    const bob = await ask(context, 'SELECT 1 AS other', as('bob', { 'quarry-cache-key': 'tile' }));
    t.is(bob.cache, 'MISS');
    t.deepEqual(bob.body, [{ other: 1 }]);
    t.is(bob.headers.get('vary'), 'X-API-Key, Authorization, Quarry-Cache-Key, Spice-Cache-Key');
  });
});

test('a read-only key cannot use a cache hit to get past the write check', async (t) => {
  await withRuntime(t, cacheSetup('', { plugins: [testKeysPlugin()] }), async (context) => {
    // The reader's own cached read, under a custom key any statement could claim...
    t.is((await ask(context, QUERY, as('reader', { 'quarry-cache-key': 'k1' }))).cache, 'MISS');
    t.is((await ask(context, QUERY, as('reader', { 'quarry-cache-key': 'k1' }))).cache, 'HIT');
    // ...does not answer a write sent with that key: the statement is classified and checked first.
    const write = await ask(context, "INSERT INTO events VALUES (9, 'nine')", as('reader', { 'quarry-cache-key': 'k1' }));
    t.is(write.status, 403);
    t.is((write.body as { error: { code: string } }).error.code, 'WRITE_NOT_ALLOWED');
    // A writer's INSERT is never stored, so repeating it as the reader is refused too.
    t.is((await ask(context, "INSERT INTO events VALUES (3, 'three')", as('alice'))).status, 200);
    const again = await ask(context, "INSERT INTO events VALUES (3, 'three')", as('reader'));
    t.is(again.status, 403);
    t.deepEqual((await ask(context, 'SELECT count(*) AS n FROM events', as('alice'))).body, [{ n: 3 }]);
  });
});
