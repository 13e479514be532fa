import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { PluginRuntime, QuarryPlugin } from '../../core/plugins/types.js';
import { CacheKeyBuilder } from './cache-key.js';
import { migrateResultsCache } from './deprecation.js';
import './errors.js';
import { createKeyHasher, HASHING_DESCRIPTIONS } from './hashing.js';
import { registerCacheMetrics, type CacheMetricPrefix } from './metrics.js';
import { ResultCache } from './result-cache.js';
import { registerSharedCaches } from '../../core/cache/shared-caches.js';
import { cachingSchema, resultsCacheSchema, type CacheConfig, type CachingConfig } from './schema.js';
import { tapSqlResultsCache } from './sql-results.js';
import { prepareEncoding, type StoredResult } from './stored-result.js';
import type { SwrRefresher } from './swr-refresher.js';

export const RESULTS_CACHE_PLUGIN_NAME = 'results-cache';

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.caching', schema: cachingSchema },
  { path: 'runtime.results_cache', schema: resultsCacheSchema, resolve: migrateResultsCache },
];

/** The caches the plugin built at start-up; a cache switched off (`enabled: false`) is absent. */
export interface ResultsCaches {
  readonly sqlResults: ResultCache<StoredResult> | undefined;
  /** For the search feature: values are whatever it stores, sized by it. */
  readonly searchResults: ResultCache<unknown> | undefined;
  /** For the embeddings feature. */
  readonly embeddings: ResultCache<unknown> | undefined;
  readonly refresher: SwrRefresher | undefined;
}

export interface ResultsCachePlugin extends QuarryPlugin {
  /** The live caches (after start-up): tests, and the search and embeddings features. */
  caches(): ResultsCaches;
}

/** Expired entries nobody reads again still hold bytes: sweep them at this pace. */
const SWEEP_MIN_MS = 1_000;
const SWEEP_MAX_MS = 60_000;

/**
 * The results caches of runtime.caching: `sql_results` on the query pipeline (HTTP and
 * Flight), `search_results` and `embeddings` as ready caches of the same type. Hooks are
 * tapped in `apply`; hashers and zstd (wasm) load in `startup`.
 */
export function createResultsCachePlugin(): ResultsCachePlugin {
  let caches: ResultsCaches = { sqlResults: undefined, searchResults: undefined, embeddings: undefined, refresher: undefined };
  return {
    name: RESULTS_CACHE_PLUGIN_NAME,
    manifest: slices,
    caches: () => caches,
    apply(runtime) {
      const config = runtime.section<CachingConfig>('runtime.caching')!;
      const sqlConfig = config.sql_results;
      const keys = new CacheKeyBuilder(sqlConfig.cache_key_type, (sql) => runtime.engine.logicalPlan(sql));
      // A new text that plan keys will plan (plan-identities.ts) has its plan started beside its prepare.
      if (sqlConfig.enabled && sqlConfig.cache_key_type === 'plan') runtime.planQueriesAhead((sql) => keys.needsPlan(sql));
      let sqlResults: ResultCache<StoredResult> | undefined;
      const timers: NodeJS.Timeout[] = [];
      registerSharedCaches(runtime.hooks, { searchResults: () => caches.searchResults, embeddings: () => caches.embeddings });

      runtime.hooks.startup.tapPromise(RESULTS_CACHE_PLUGIN_NAME, async () => {
        await prepareEncoding(sqlConfig.encoding);
        sqlResults = await buildCache<StoredResult>(runtime, 'results', sqlConfig, sqlConfig.stale_while_revalidate_ttl);
        const searchResults = await buildCache<unknown>(runtime, 'search_results', config.search_results, 0);
        const embeddings = await buildCache<unknown>(runtime, 'embeddings', config.embeddings, 0);
        caches = { sqlResults, searchResults, embeddings, refresher: caches.refresher };
        for (const cache of [sqlResults, searchResults, embeddings]) {
          if (!cache) continue;
          const every = Math.min(SWEEP_MAX_MS, Math.max(SWEEP_MIN_MS, cache.itemTtlMs + cache.staleWhileRevalidateMs));
          const timer = setInterval(() => cache.sweep(), every);
          timer.unref();
          timers.push(timer);
        }
        if (sqlResults) {
          runtime.log.info('sql_results cache on', {
            max_size: sqlConfig.max_size,
            eviction_policy: sqlConfig.eviction_policy,
            item_ttl_ms: sqlConfig.item_ttl,
            stale_while_revalidate_ttl_ms: sqlConfig.stale_while_revalidate_ttl,
            cache_key_type: sqlConfig.cache_key_type,
            encoding: sqlConfig.encoding,
            hashing_algorithm: sqlConfig.hashing_algorithm,
            hashing: HASHING_DESCRIPTIONS[sqlConfig.hashing_algorithm],
          });
        } else {
          runtime.log.info('sql_results cache off (runtime.caching.sql_results.enabled: false)');
        }
      });

      if (sqlConfig.enabled) {
        const refresher = tapSqlResultsCache({
          name: RESULTS_CACHE_PLUGIN_NAME,
          runtime,
          // The taps run only once queries flow, after start-up built the cache.
          cache: () => sqlResults,
          keys,
          encoding: sqlConfig.encoding,
          log: runtime.log,
        });
        caches = { ...caches, refresher };
      }

      // Search results read datasets too; embeddings are a pure function of model and input.
      runtime.hooks.cache.invalidate.tap({ name: RESULTS_CACHE_PLUGIN_NAME, stage: STAGE.CACHE }, (invalidation) => {
        caches.searchResults?.invalidate(invalidation.datasets);
      });

      runtime.hooks.shutdown.stop.tap({ name: RESULTS_CACHE_PLUGIN_NAME, stage: STAGE.STOP_PLUGINS }, () => {
        for (const timer of timers) clearInterval(timer);
        for (const cache of [caches.sqlResults, caches.searchResults, caches.embeddings]) cache?.clear();
      });
    },
  };
}

async function buildCache<V>(runtime: PluginRuntime, prefix: CacheMetricPrefix, config: CacheConfig, staleWhileRevalidateMs: number): Promise<ResultCache<V> | undefined> {
  if (!config.enabled) return undefined;
  const cache: ResultCache<V> = new ResultCache<V>({
    maxBytes: config.max_size,
    policy: config.eviction_policy,
    itemTtlMs: config.item_ttl,
    staleWhileRevalidateMs,
    hasher: await createKeyHasher(config.hashing_algorithm),
    metrics: registerCacheMetrics(runtime.metrics, prefix, {
      get itemCount() {
        return cache.itemCount;
      },
      get bytes() {
        return cache.bytes;
      },
      get maxBytes() {
        return cache.maxBytes;
      },
    }),
  });
  if (prefix !== 'results') runtime.log.debug(`${prefix} cache on`, { max_size: config.max_size, eviction_policy: config.eviction_policy, hashing: HASHING_DESCRIPTIONS[config.hashing_algorithm] });
  return cache;
}
