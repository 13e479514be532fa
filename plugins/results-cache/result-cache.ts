import { createEvictionStore, type EvictionPolicy, type EvictionStore } from './eviction/eviction-store.js';
import type { KeyHasher } from './hashing.js';
import type { CacheMetrics } from './metrics.js';

/**
 * Memory an entry holds beside its value and key: the entry, its index and eviction records,
 * the hashed key (measured with empty results in quarryd: ~1–2 KiB an entry, all told).
 * Counted so that a million empty results are not a million bytes.
 */
export const ENTRY_OVERHEAD_BYTES = 1024;

/** One cached value with what decides whether it may still be served. */
export interface CacheEntry<V> {
  readonly value: V;
  /**
   * What `max_size` counts: the bytes the value holds (compressed when compressed) and the
   * entry's own memory (ENTRY_OVERHEAD_BYTES and its key), so that small values cannot
   * outgrow the cache's bounds in number.
   */
  bytes: number;
  /** The unhashed key: checked on every hit, so a hash collision is a miss, never a wrong answer. */
  readonly material: string;
  /** Datasets the value was computed from (lower-case): their invalidation drops it. */
  readonly datasets: readonly string[];
  readonly storedAt: number;
  /** Served as a hit until then (storedAt + item_ttl). */
  freshUntil: number;
  /** Served stale until then (freshUntil + stale_while_revalidate_ttl); dropped after. */
  staleUntil: number;
}

/** A live entry found for a key, and how old it is. */
export interface CacheLookup<V> {
  readonly key: string;
  readonly entry: CacheEntry<V>;
  readonly ageMs: number;
  /** Fresh for this many more milliseconds; negative once expired. */
  readonly freshForMs: number;
}

/** Per-dataset change counters read when a query starts: a result computed before a change is never stored. */
export interface GenerationSnapshot {
  readonly datasets: readonly string[];
  readonly generations: readonly number[];
}

export interface ResultCacheOptions {
  readonly maxBytes: number;
  readonly policy: EvictionPolicy;
  readonly itemTtlMs: number;
  readonly staleWhileRevalidateMs?: number;
  readonly hasher: KeyHasher;
  readonly metrics?: CacheMetrics;
  /** Clock in milliseconds (tests move it). */
  readonly now?: () => number;
}

/**
 * The cache type behind `sql_results`, `search_results` and `embeddings`: values under
 * hashed keys, bounded in bytes by an eviction policy, expiring after `item_ttl` (plus the
 * stale-while-revalidate window), and dropped when a dataset they read changes.
 */
export class ResultCache<V> {
  readonly itemTtlMs: number;
  readonly staleWhileRevalidateMs: number;
  readonly policy: EvictionPolicy;
  readonly metrics: CacheMetrics | undefined;
  readonly #hasher: KeyHasher;
  readonly #now: () => number;
  readonly #store: EvictionStore<CacheEntry<V>>;
  /** dataset -> keys of entries computed from it. */
  readonly #byDataset = new Map<string, Set<string>>();
  readonly #generations = new Map<string, number>();

  constructor(options: ResultCacheOptions) {
    this.itemTtlMs = options.itemTtlMs;
    this.staleWhileRevalidateMs = options.staleWhileRevalidateMs ?? 0;
    this.policy = options.policy;
    this.metrics = options.metrics;
    this.#hasher = options.hasher;
    this.#now = options.now ?? Date.now;
    this.#store = createEvictionStore<CacheEntry<V>>({
      policy: options.policy,
      maxBytes: options.maxBytes,
      onEvict: (key, entry) => {
        this.#unindex(key, entry);
        this.metrics?.evicted(1);
      },
    });
  }

  get itemCount(): number {
    return this.#store.count;
  }

  get bytes(): number {
    return this.#store.bytes;
  }

  get maxBytes(): number {
    return this.#store.maxBytes;
  }

  now(): number {
    return this.#now();
  }

  keyOf(material: string): string {
    return this.#hasher(material);
  }

  /**
   * The live entry for a key, fresh or within its stale window; records the access for the
   * eviction policy. Counts nothing in the metrics: the caller decides what is a hit.
   */
  find(material: string, key = this.keyOf(material)): CacheLookup<V> | undefined {
    const entry = this.#store.get(key);
    if (entry === undefined || entry.material !== material) return undefined;
    const now = this.#now();
    if (now >= entry.staleUntil) {
      this.#delete(key, entry);
      this.metrics?.evicted(1);
      return undefined;
    }
    return { key, entry, ageMs: now - entry.storedAt, freshForMs: entry.freshUntil - now };
  }

  /** The plain read (search results, embeddings): a fresh value or undefined, counted as a hit or a miss. */
  get(material: string): V | undefined {
    const found = this.find(material);
    const value = found && found.freshForMs > 0 ? found.entry.value : undefined;
    this.metrics?.request(value !== undefined);
    return value;
  }

  /**
   * Stores a value. With `generations` (taken by `generationsOf` when the computation
   * started), a value computed before one of its datasets changed is refused. Returns
   * whether the value is held (the policy may refuse it too).
   */
  set(material: string, value: V, options: { bytes: number; datasets?: readonly string[]; generations?: GenerationSnapshot; key?: string }): boolean {
    if (options.generations && !this.isCurrent(options.generations)) return false;
    const key = options.key ?? this.keyOf(material);
    const previous = this.#store.peek(key);
    if (previous) this.#delete(key, previous);
    const storedAt = this.#now();
    const freshUntil = storedAt + this.itemTtlMs;
    const entry: CacheEntry<V> = {
      value,
      bytes: options.bytes + ENTRY_OVERHEAD_BYTES + material.length * 2,
      material,
      datasets: options.datasets ?? [],
      storedAt,
      freshUntil,
      staleUntil: freshUntil + this.staleWhileRevalidateMs,
    };
    this.#index(key, entry);
    const held = this.#store.set(key, entry, entry.bytes);
    if (!held) this.#unindex(key, entry);
    return held;
  }

  /**
   * The entry under `key` now holds `extraBytes` more (e.g. an encoded response kept beside
   * it): re-counted against max_size, which may evict others or the entry itself. False
   * when the entry is no longer held (evicted or invalidated since it was found).
   */
  grow(key: string, entry: CacheEntry<V>, extraBytes: number): boolean {
    if (this.#store.peek(key) !== entry) return false;
    entry.bytes += extraBytes;
    const held = this.#store.set(key, entry, entry.bytes);
    if (!held) this.#unindex(key, entry);
    return held;
  }

  /** Drops the entry for a key material, if held. */
  delete(material: string): boolean {
    const key = this.keyOf(material);
    const entry = this.#store.peek(key);
    if (!entry || entry.material !== material) return false;
    this.#delete(key, entry);
    return true;
  }

  generationsOf(datasets: readonly string[]): GenerationSnapshot {
    return { datasets, generations: datasets.map((dataset) => this.#generations.get(dataset) ?? 0) };
  }

  isCurrent(snapshot: GenerationSnapshot): boolean {
    return snapshot.datasets.every((dataset, index) => (this.#generations.get(dataset) ?? 0) === snapshot.generations[index]);
  }

  /**
   * A dataset changed: results in flight that read it will not be stored, and held ones are
   * dropped (`evict`), or with `stale` (a refresh while stale-while-revalidate is on) kept
   * as stale, to be served once more while they are recomputed. Returns the entries touched.
   */
  invalidate(datasets: readonly string[], mode: 'evict' | 'stale' = 'evict'): number {
    const now = this.#now();
    let touched = 0;
    for (const dataset of datasets) {
      this.#generations.set(dataset, (this.#generations.get(dataset) ?? 0) + 1);
      for (const key of [...(this.#byDataset.get(dataset) ?? [])]) {
        const entry = this.#store.peek(key);
        if (!entry) continue;
        touched += 1;
        if (mode === 'stale' && this.staleWhileRevalidateMs > 0) {
          entry.freshUntil = Math.min(entry.freshUntil, now);
          entry.staleUntil = Math.min(entry.staleUntil, now + this.staleWhileRevalidateMs);
        } else {
          this.#delete(key, entry);
        }
      }
    }
    return touched;
  }

  /** Drops expired entries nobody asked for again (they still held bytes). Returns how many. */
  sweep(): number {
    const now = this.#now();
    let dropped = 0;
    for (const [key, entry] of this.#store.entries()) {
      if (now < entry.staleUntil) continue;
      this.#delete(key, entry);
      dropped += 1;
    }
    this.metrics?.evicted(dropped);
    return dropped;
  }

  clear(): void {
    this.#store.clear();
    this.#byDataset.clear();
  }

  #delete(key: string, entry: CacheEntry<V>): void {
    this.#store.delete(key);
    this.#unindex(key, entry);
  }

  #index(key: string, entry: CacheEntry<V>): void {
    for (const dataset of entry.datasets) {
      let keys = this.#byDataset.get(dataset);
      if (!keys) this.#byDataset.set(dataset, (keys = new Set()));
      keys.add(key);
    }
  }

  #unindex(key: string, entry: CacheEntry<V>): void {
    for (const dataset of entry.datasets) {
      const keys = this.#byDataset.get(dataset);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) this.#byDataset.delete(dataset);
    }
  }
}
