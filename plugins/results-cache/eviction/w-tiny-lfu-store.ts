import type { EvictionListener, EvictionStore } from './eviction-store.js';
import { FrequencySketch, hashString } from './frequency-sketch.js';

type Segment = 'window' | 'probation' | 'protected';

interface Node<V> {
  readonly key: string;
  readonly value: V;
  readonly bytes: number;
  readonly hash: number;
  segment: Segment;
}

/** Share of the bytes given to the admission window (Caffeine's starting point). */
const WINDOW_SHARE = 0.01;
/** Share of the main region kept for entries hit at least twice. */
const PROTECTED_SHARE = 0.8;

/**
 * W-TinyLFU (the policy of Caffeine), counted in bytes:
 *
 *   new entry -> window (LRU, 1%) --overflow--> admission: candidate vs. victims
 *                                                 | wins                | loses
 *                                     main: probation (LRU) -hit-> protected (LRU, 80%)
 *                                                                   | overflow: back to probation
 *
 * The window lets a burst of new entries prove themselves by recency; leaving it, an entry
 * enters the main region only if the frequency sketch says it is more popular than every
 * entry it would push out (the least recent of probation, then of protected). A scan of
 * one-off queries thus flows through the window without flushing the popular entries,
 * which is where plain LRU loses its hit rate.
 *
 * Recency order is a Map's insertion order: re-inserting an entry makes it the most recent.
 * Frequency is recorded on every `get` (hits and misses), not on `set`: the owner looks a
 * key up before storing it, and counting both would let a single scan look popular.
 */
export class WTinyLfuStore<V> implements EvictionStore<V> {
  readonly policy = 'tiny_lfu' as const;
  readonly maxBytes: number;
  readonly windowMaxBytes: number;
  readonly mainMaxBytes: number;
  readonly protectedMaxBytes: number;
  readonly #segments: Record<Segment, Map<string, Node<V>>> = { window: new Map(), probation: new Map(), protected: new Map() };
  readonly #segmentBytes: Record<Segment, number> = { window: 0, probation: 0, protected: 0 };
  readonly #sketch = new FrequencySketch();
  readonly #onEvict: EvictionListener<V>;

  constructor(maxBytes: number, onEvict: EvictionListener<V>) {
    this.maxBytes = Math.max(2, Math.floor(maxBytes));
    this.windowMaxBytes = Math.max(1, Math.floor(this.maxBytes * WINDOW_SHARE));
    this.mainMaxBytes = this.maxBytes - this.windowMaxBytes;
    this.protectedMaxBytes = Math.floor(this.mainMaxBytes * PROTECTED_SHARE);
    this.#onEvict = onEvict;
  }

  get bytes(): number {
    return this.#segmentBytes.window + this.#segmentBytes.probation + this.#segmentBytes.protected;
  }

  get count(): number {
    return this.#segments.window.size + this.#segments.probation.size + this.#segments.protected.size;
  }

  /** Bytes held per segment (tests, diagnostics). */
  segmentBytes(): Readonly<Record<Segment, number>> {
    return { ...this.#segmentBytes };
  }

  get(key: string): V | undefined {
    this.#sketch.increment(hashString(key));
    const node = this.#find(key);
    if (!node) return undefined;
    this.#touch(node);
    return node.value;
  }

  peek(key: string): V | undefined {
    return this.#find(key)?.value;
  }

  set(key: string, value: V, bytes: number): boolean {
    const existing = this.#find(key);
    if (existing) this.#remove(existing);
    const node: Node<V> = { key, value, bytes: Math.max(1, Math.ceil(bytes)), hash: hashString(key), segment: 'window' };
    if (node.bytes > this.mainMaxBytes) {
      this.#onEvict(key, value, 'capacity');
      return false;
    }
    this.#append(node, 'window');
    this.#sketch.ensureCapacity(this.count, () => this.#heldHashes());
    this.#drainWindow();
    return this.#find(key) === node;
  }

  delete(key: string): V | undefined {
    const node = this.#find(key);
    if (!node) return undefined;
    this.#remove(node);
    return node.value;
  }

  *entries(): IterableIterator<[string, V]> {
    const nodes = [...this.#segments.window.values(), ...this.#segments.probation.values(), ...this.#segments.protected.values()];
    for (const node of nodes) yield [node.key, node.value];
  }

  clear(): void {
    for (const segment of ['window', 'probation', 'protected'] as const) {
      this.#segments[segment].clear();
      this.#segmentBytes[segment] = 0;
    }
  }

  *#heldHashes(): Iterable<number> {
    for (const segment of Object.values(this.#segments)) for (const node of segment.values()) yield node.hash;
  }

  #find(key: string): Node<V> | undefined {
    return this.#segments.window.get(key) ?? this.#segments.probation.get(key) ?? this.#segments.protected.get(key);
  }

  #append(node: Node<V>, segment: Segment): void {
    node.segment = segment;
    this.#segments[segment].set(node.key, node);
    this.#segmentBytes[segment] += node.bytes;
  }

  #remove(node: Node<V>): void {
    this.#segments[node.segment].delete(node.key);
    this.#segmentBytes[node.segment] -= node.bytes;
  }

  /** A hit: most recent in its segment; a probation hit earns a place in protected. */
  #touch(node: Node<V>): void {
    this.#remove(node);
    if (node.segment === 'window') {
      this.#append(node, 'window');
      return;
    }
    this.#append(node, 'protected');
    while (this.#segmentBytes.protected > this.protectedMaxBytes) {
      const demoted = this.#leastRecent('protected')!;
      this.#remove(demoted);
      this.#append(demoted, 'probation');
    }
  }

  #leastRecent(segment: Segment): Node<V> | undefined {
    return this.#segments[segment].values().next().value;
  }

  /** Entries pushed out of the window become admission candidates for the main region. */
  #drainWindow(): void {
    while (this.#segmentBytes.window > this.windowMaxBytes) {
      const candidate = this.#leastRecent('window');
      if (!candidate) return;
      this.#remove(candidate);
      this.#admit(candidate);
    }
  }

  /**
   * The candidate enters probation if there is room, or if it is more popular than every
   * entry that must leave to make room (ties keep the resident: evicting costs a refill).
   * Victims are chosen before anything is evicted, so a losing candidate evicts nothing.
   */
  #admit(candidate: Node<V>): void {
    let needed = this.#segmentBytes.probation + this.#segmentBytes.protected + candidate.bytes - this.mainMaxBytes;
    if (needed > 0) {
      const candidateFrequency = this.#sketch.frequency(candidate.hash);
      const victims: Node<V>[] = [];
      for (const segment of ['probation', 'protected'] as const) {
        for (const victim of this.#segments[segment].values()) {
          if (needed <= 0) break;
          if (this.#sketch.frequency(victim.hash) >= candidateFrequency) {
            this.#onEvict(candidate.key, candidate.value, 'capacity');
            return;
          }
          victims.push(victim);
          needed -= victim.bytes;
        }
      }
      for (const victim of victims) {
        this.#remove(victim);
        this.#onEvict(victim.key, victim.value, 'capacity');
      }
    }
    this.#append(candidate, 'probation');
  }
}
