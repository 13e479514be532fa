/**
 * A reproducible access trace for comparing eviction policies: keys drawn from a Zipf
 * distribution (a few hot queries, a long tail), interrupted by periodic scans of one-off
 * keys (a dashboard refresh, a batch export), each key with a fixed size in bytes.
 */
export interface TraceOptions {
  readonly distinctKeys: number;
  /** Zipf exponent: 1 is classic web-like skew; lower is flatter. */
  readonly exponent: number;
  readonly requests: number;
  /** A scan starts every `scanEvery` requests... */
  readonly scanEvery: number;
  /** ...and reads this many keys never seen before. */
  readonly scanLength: number;
  readonly seed: number;
}

export interface TraceRequest {
  readonly key: string;
  readonly bytes: number;
}

/** mulberry32: a tiny seeded PRNG, so every run replays the same trace. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sizes between 1 KiB and 16 KiB, fixed per key (a result's size does not change between runs). */
function sizeOf(keyNumber: number): number {
  return 1024 * (1 + ((keyNumber * 2654435761) >>> 0) % 16);
}

export function* zipfTrace(options: TraceOptions): Generator<TraceRequest> {
  const random = seededRandom(options.seed);
  const cumulative = new Float64Array(options.distinctKeys);
  let total = 0;
  for (let rank = 0; rank < options.distinctKeys; rank++) {
    total += 1 / Math.pow(rank + 1, options.exponent);
    cumulative[rank] = total;
  }
  let scanKey = 0;
  for (let index = 0; index < options.requests; index++) {
    if (index > 0 && index % options.scanEvery === 0) {
      for (let step = 0; step < options.scanLength; step++, scanKey++) yield { key: `scan-${scanKey}`, bytes: sizeOf(options.distinctKeys + scanKey) };
    }
    const target = random() * total;
    let low = 0;
    let high = options.distinctKeys - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    yield { key: `key-${low}`, bytes: sizeOf(low) };
  }
}

/** Total bytes of the distinct (non-scan) keys: the cache is sized as a share of it. */
export function workingSetBytes(distinctKeys: number): number {
  let total = 0;
  for (let key = 0; key < distinctKeys; key++) total += sizeOf(key);
  return total;
}
