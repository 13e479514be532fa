import test from 'ava';
import { createEvictionStore, type EvictionPolicy } from '../../plugins/results-cache/eviction/eviction-store.js';
import { workingSetBytes, zipfTrace, type TraceOptions } from './zipf-trace.js';

/** Hit rate of a policy replaying a trace the way the cache is used: look up, store on a miss. */
function hitRate(policy: EvictionPolicy, options: TraceOptions, cacheShare: number): number {
  const store = createEvictionStore<true>({ policy, maxBytes: Math.floor(workingSetBytes(options.distinctKeys) * cacheShare) });
  let hits = 0;
  let requests = 0;
  for (const request of zipfTrace(options)) {
    requests += 1;
    if (store.get(request.key) !== undefined) hits += 1;
    else store.set(request.key, true, request.bytes);
  }
  return hits / requests;
}

// The figures of docs/caching.md come from this test (`npx ava test/cache/hit-rate.test.ts --verbose`).
const cases: Array<{ exponent: number; cacheShare: number }> = [
  { exponent: 0.8, cacheShare: 0.01 },
  { exponent: 0.8, cacheShare: 0.05 },
  { exponent: 0.8, cacheShare: 0.2 },
  { exponent: 1.0, cacheShare: 0.01 },
  { exponent: 1.0, cacheShare: 0.05 },
  { exponent: 1.0, cacheShare: 0.2 },
];

for (const { exponent, cacheShare } of cases) {
  test(`tiny_lfu beats lru on a Zipf(${exponent}) trace with scans, cache = ${cacheShare * 100}% of the working set`, (t) => {
    const options: TraceOptions = { distinctKeys: 20_000, exponent, requests: 200_000, scanEvery: 20_000, scanLength: 5_000, seed: 7 };
    const lru = hitRate('lru', options, cacheShare);
    const tinyLfu = hitRate('tiny_lfu', options, cacheShare);
    t.log(`lru ${(lru * 100).toFixed(1)}%  tiny_lfu ${(tinyLfu * 100).toFixed(1)}%  (+${((tinyLfu - lru) * 100).toFixed(1)} points)`);
    t.true(tinyLfu > lru + 0.03, `tiny_lfu ${tinyLfu} should beat lru ${lru} by 3 points or more`);
  });
}
