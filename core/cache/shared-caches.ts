import type { Hooks } from '../hooks/hooks.js';

/** Per-dataset change counters read when a computation starts (see ResultCache.generationsOf). */
export interface SharedCacheGenerations {
  readonly datasets: readonly string[];
  readonly generations: readonly number[];
}

/** What a plugin may do with one of the runtime's shared caches. */
export interface SharedCache {
  /** A fresh value, or undefined; counted as a hit or a miss. */
  get(material: string): unknown;
  /**
   * Stores a value, dropped when one of `datasets` changes; with `generations` (taken when the
   * computation started) a value computed while one of them changed is refused.
   */
  set(material: string, value: unknown, options: { bytes: number; datasets?: readonly string[]; generations?: SharedCacheGenerations }): boolean;
  generationsOf(datasets: readonly string[]): SharedCacheGenerations;
}

/** The caches of runtime.caching other plugins fill (search results, query embeddings); undefined while off. */
export interface SharedCaches {
  searchResults(): SharedCache | undefined;
  embeddings(): SharedCache | undefined;
}

/**
 * Keyed by the runtime's hooks object, as the task history is (core/tasks/task-history.ts):
 * one per runtime. The results-cache plugin registers its caches here; the search plugin
 * reaches them with `sharedCaches(runtime.hooks)` without importing that plugin (which may be
 * disabled). They exist once start-up has built them.
 */
const instances = new WeakMap<Hooks, SharedCaches>();

export function sharedCaches(hooks: Hooks): SharedCaches | undefined {
  return instances.get(hooks);
}

export function registerSharedCaches(hooks: Hooks, caches: SharedCaches): void {
  instances.set(hooks, caches);
}
