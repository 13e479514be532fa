import { LruStore } from './lru-store.js';
import { WTinyLfuStore } from './w-tiny-lfu-store.js';

export type EvictionPolicy = 'lru' | 'tiny_lfu';

/**
 * Why the store dropped an entry by itself: `capacity` (it made room for others, or lost
 * W-TinyLFU admission). Removals the owner asks for (`delete`, `clear`) are not reported.
 */
export type EvictionReason = 'capacity';

export type EvictionListener<V> = (key: string, value: V, reason: EvictionReason) => void;

/**
 * A byte-bounded map that decides what to drop when full. Sizes are given by the owner
 * (the bytes an entry really holds), so `bytes` never exceeds `maxBytes`.
 */
export interface EvictionStore<V> {
  readonly policy: EvictionPolicy;
  readonly maxBytes: number;
  /** Sum of the sizes of the entries held. */
  readonly bytes: number;
  readonly count: number;
  /** Reads and records the access (recency for LRU, recency and frequency for W-TinyLFU). */
  get(key: string): V | undefined;
  /** Reads without recording an access. */
  peek(key: string): V | undefined;
  /**
   * Stores an entry of `bytes` (at least 1) and evicts as the policy says; the listener
   * hears every entry dropped, the new one included when it was refused. Returns whether
   * the entry is held afterwards.
   */
  set(key: string, value: V, bytes: number): boolean;
  /** Removes an entry; returns it when it was held. */
  delete(key: string): V | undefined;
  /** Every entry held, in no particular order (expiry sweeps). */
  entries(): IterableIterator<[string, V]>;
  clear(): void;
}

export interface EvictionStoreOptions<V> {
  readonly policy: EvictionPolicy;
  readonly maxBytes: number;
  readonly onEvict?: EvictionListener<V>;
}

export function createEvictionStore<V>(options: EvictionStoreOptions<V>): EvictionStore<V> {
  const onEvict = options.onEvict ?? (() => undefined);
  return options.policy === 'tiny_lfu' ? new WTinyLfuStore<V>(options.maxBytes, onEvict) : new LruStore<V>(options.maxBytes, onEvict);
}
