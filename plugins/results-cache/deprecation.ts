import type { SliceResolveContext } from '../../core/manifest/slice.js';
import type { CachingConfig, ResultsCacheConfig, SqlResultsCacheConfig } from './schema.js';

/**
 * Maps deprecated `runtime.results_cache` onto `runtime.caching.sql_results` (spec: it
 * overrides sql_results only when sql_results is not defined), then drops it so the rest
 * of the runtime reads one place.
 */
export function migrateResultsCache(context: SliceResolveContext): void {
  if (!context.isConfigured('runtime.results_cache')) return;
  const runtime = context.manifest.runtime;
  const legacy = runtime.results_cache as ResultsCacheConfig;
  delete runtime.results_cache;
  if (context.isConfigured('runtime.caching.sql_results')) {
    context.warn('runtime.results_cache is deprecated and ignored because runtime.caching.sql_results is set; remove runtime.results_cache');
    return;
  }
  if (!legacy) return;
  const caching = runtime.caching as CachingConfig;
  const { cache_max_size: oldMaxSize, ...sameNames } = legacy;
  const mapped: Partial<SqlResultsCacheConfig> = Object.fromEntries(Object.entries(sameNames).filter(([, value]) => value !== undefined));
  if (oldMaxSize !== undefined) mapped.max_size = oldMaxSize;
  caching.sql_results = { ...caching.sql_results, ...mapped };
  const renamed = oldMaxSize !== undefined ? ' (cache_max_size is now max_size)' : '';
  context.warn(`runtime.results_cache is deprecated: its settings are applied as runtime.caching.sql_results; move them there${renamed}`);
}
