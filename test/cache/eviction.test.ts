import test from 'ava';
import { createEvictionStore, type EvictionPolicy } from '../../plugins/results-cache/eviction/eviction-store.js';
import { FrequencySketch, hashString } from '../../plugins/results-cache/eviction/frequency-sketch.js';
import { WTinyLfuStore } from '../../plugins/results-cache/eviction/w-tiny-lfu-store.js';

const policies: EvictionPolicy[] = ['lru', 'tiny_lfu'];

for (const policy of policies) {
  test(`${policy}: counts bytes, never exceeds max_size, reports what it evicts`, (t) => {
    const evicted: string[] = [];
    const store = createEvictionStore<string>({ policy, maxBytes: 10_000, onEvict: (key) => evicted.push(key) });
    for (let index = 0; index < 50; index++) {
      store.get(`k${index}`);
      store.set(`k${index}`, `v${index}`, 1_000);
      t.true(store.bytes <= 10_000);
    }
    t.is(store.bytes, store.count * 1_000);
    t.is(store.count + evicted.length, 50, 'every entry is held or was reported evicted');
    t.is(store.policy, policy);
  });

  test(`${policy}: an entry larger than the cache is refused, delete and clear free bytes`, (t) => {
    const store = createEvictionStore<string>({ policy, maxBytes: 1_000 });
    t.false(store.set('huge', 'x', 5_000));
    t.is(store.peek('huge'), undefined);
    t.true(store.set('small', 'y', 100));
    t.is(store.get('small'), 'y');
    t.is(store.delete('small'), 'y');
    t.is(store.bytes, 0);
    store.set('a', 'a', 10);
    store.clear();
    t.is(store.count, 0);
  });
}

test('lru: the least recently used entry goes first', (t) => {
  const store = createEvictionStore<string>({ policy: 'lru', maxBytes: 300 });
  store.set('a', 'a', 100);
  store.set('b', 'b', 100);
  store.set('c', 'c', 100);
  store.get('a');
  store.set('d', 'd', 100);
  t.deepEqual([...store.entries()].map(([key]) => key).sort(), ['a', 'c', 'd']);
});

test('tiny_lfu: segments are 1% window and 80% of main protected; a probation hit is promoted', (t) => {
  const store = new WTinyLfuStore<string>(100_000, () => undefined);
  t.is(store.windowMaxBytes, 1_000);
  t.is(store.mainMaxBytes, 99_000);
  t.is(store.protectedMaxBytes, 79_200);
  store.set('a', 'a', 600);
  store.set('b', 'b', 600); // pushes a out of the window into probation
  t.deepEqual(store.segmentBytes(), { window: 600, probation: 600, protected: 0 });
  store.get('a');
  t.deepEqual(store.segmentBytes(), { window: 600, probation: 0, protected: 600 });
});

test('tiny_lfu: a popular entry survives a scan of one-off keys that flushes lru', (t) => {
  for (const policy of policies) {
    const store = createEvictionStore<string>({ policy, maxBytes: 100_000 });
    for (let round = 0; round < 5; round++) {
      for (let hot = 0; hot < 20; hot++) if (store.get(`hot${hot}`) === undefined) store.set(`hot${hot}`, 'h', 1_000);
    }
    for (let scan = 0; scan < 1_000; scan++) if (store.get(`scan${scan}`) === undefined) store.set(`scan${scan}`, 's', 1_000);
    const survivors = Array.from({ length: 20 }, (_, hot) => store.peek(`hot${hot}`)).filter(Boolean).length;
    if (policy === 'lru') t.is(survivors, 0, 'lru keeps only the scan');
    else t.is(survivors, 20, 'w-tinylfu keeps every hot entry');
  }
});

test('tiny_lfu: a candidate must beat every victim it displaces; a loser evicts nothing', (t) => {
  const evicted: string[] = [];
  const store = new WTinyLfuStore<string>(10_000, (key) => evicted.push(key));
  for (let index = 0; index < 9; index++) {
    for (let read = 0; read < 3; read++) store.get(`resident${index}`);
    store.set(`resident${index}`, 'r', 1_000);
  }
  store.set('filler', 'f', 99); // fills the window, pushing the residents into main
  evicted.length = 0;
  store.get('big');
  store.set('big', 'b', 5_000); // read once: less popular than the residents
  t.deepEqual(evicted, ['big']);
  t.is(store.count, 10);
});

test('frequency sketch: 4-bit counters saturate at 15 (+1 doorkeeper), aging halves them', (t) => {
  const sketch = new FrequencySketch(64);
  const key = hashString('popular');
  t.is(sketch.frequency(key), 0);
  sketch.increment(key);
  t.is(sketch.frequency(key), 1, 'the first sighting only sets the doorkeeper');
  for (let index = 0; index < 40; index++) sketch.increment(key);
  t.is(sketch.frequency(key), 16, 'counters saturate at 15, plus the doorkeeper bit');
  // 10 × width additions trigger aging: counters halve, the doorkeeper is cleared.
  for (let index = 0; index < 10 * sketch.width; index++) {
    const other = hashString(`other${index % 50}`);
    sketch.increment(other);
  }
  t.true(sketch.frequency(key) <= 8, `aged to ${sketch.frequency(key)}`);
});

test('frequency sketch: grows with the key count and keeps distinct keys apart', (t) => {
  const sketch = new FrequencySketch(64);
  sketch.ensureCapacity(1_000, () => []);
  t.is(sketch.width, 1_024);
  for (let index = 0; index < 5; index++) sketch.increment(hashString('five'));
  sketch.increment(hashString('one'));
  t.is(sketch.frequency(hashString('five')), 5);
  t.is(sketch.frequency(hashString('one')), 1);
  t.is(sketch.frequency(hashString('never')), 0);
});
