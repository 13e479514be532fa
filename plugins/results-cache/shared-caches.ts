import type { Hooks } from '../../core/hooks/hooks.js';
import type { ResultCache } from './result-cache.js';

/** The caches of runtime.caching other plugins fill (search results, query embeddings); undefined while off. */
export interface SharedCaches {
  searchResults(): ResultCache<unknown> | undefined;
  embeddings(): ResultCache<unknown> | undefined;
}

/**
 * Keyed by the runtime's hooks object, as the task history is (see task-history/recorder.ts):
 * one per runtime. The search plugin reaches them with `sharedCaches(runtime.hooks)`; they
 * exist once start-up has built them, and stay undefined when the cache or this plugin is off.
 */
const instances = new WeakMap<Hooks, SharedCaches>();

export function sharedCaches(hooks: Hooks): SharedCaches | undefined {
  return instances.get(hooks);
}

export function registerSharedCaches(hooks: Hooks, caches: SharedCaches): void {
  instances.set(hooks, caches);
}
