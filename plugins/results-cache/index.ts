import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import { warnNotYetEffective } from '../../core/plugins/pending.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { migrateResultsCache } from './deprecation.js';
import { cachingSchema, resultsCacheSchema } from './schema.js';

export const RESULTS_CACHE_PLUGIN_NAME = 'results-cache';

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.caching', schema: cachingSchema },
  { path: 'runtime.results_cache', schema: resultsCacheSchema, resolve: migrateResultsCache },
];

/** Caches of SQL results, search results and embeddings (placeholder until the caching issue). */
export function createResultsCachePlugin(): QuarryPlugin {
  return {
    name: RESULTS_CACHE_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      for (const path of ['runtime.caching', 'runtime.results_cache']) warnNotYetEffective(runtime, path, 'result caching');
    },
  };
}
