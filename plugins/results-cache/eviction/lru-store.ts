import { LRUCache } from 'lru-cache';
import type { EvictionListener, EvictionStore } from './eviction-store.js';

interface Held<V> {
  readonly value: V;
  readonly bytes: number;
}

/**
 * Least recently used, on lru-cache (`maxSize` with our own byte sizes). lru-cache silently
 * skips an entry larger than `maxSize`; `set` reports that as false.
 */
export class LruStore<V> implements EvictionStore<V> {
  readonly policy = 'lru' as const;
  readonly maxBytes: number;
  readonly #cache: LRUCache<string, Held<V>>;

  constructor(maxBytes: number, onEvict: EvictionListener<V>) {
    this.maxBytes = Math.max(1, Math.floor(maxBytes));
    this.#cache = new LRUCache<string, Held<V>>({
      maxSize: this.maxBytes,
      sizeCalculation: (held) => held.bytes,
      // Only evictions for room are the policy's doing; deletes and overwrites are the owner's.
      dispose: (held, key, reason) => {
        if (reason === 'evict') onEvict(key, held.value, 'capacity');
      },
    });
  }

  get bytes(): number {
    return this.#cache.calculatedSize;
  }

  get count(): number {
    return this.#cache.size;
  }

  get(key: string): V | undefined {
    return this.#cache.get(key)?.value;
  }

  peek(key: string): V | undefined {
    return this.#cache.peek(key)?.value;
  }

  set(key: string, value: V, bytes: number): boolean {
    const held = { value, bytes: Math.max(1, Math.ceil(bytes)) };
    if (held.bytes > this.maxBytes) {
      this.#cache.delete(key);
      return false;
    }
    this.#cache.set(key, held);
    return this.#cache.peek(key) === held;
  }

  delete(key: string): V | undefined {
    const held = this.#cache.peek(key);
    if (held === undefined) return undefined;
    this.#cache.delete(key);
    return held.value;
  }

  *entries(): IterableIterator<[string, V]> {
    // A snapshot: callers delete while iterating.
    for (const [key, held] of [...this.#cache.entries()]) yield [key, held.value];
  }

  clear(): void {
    this.#cache.clear();
  }
}
