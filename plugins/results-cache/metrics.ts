import type { MetricsRegistry } from '../../core/metrics/registry.js';

/** Metric name prefixes, as Spice names them: `results_cache_hits`, `search_results_cache_hits`, ... */
export type CacheMetricPrefix = 'results' | 'search_results' | 'embeddings';

/** What a cache reports as it works; gauges are read from the cache when collected. */
export interface CacheMetrics {
  /** One lookup that counted: a hit (served, fresh or stale) or a miss. */
  request(hit: boolean): void;
  /** Entries dropped for room or because they expired (not invalidations or overwrites). */
  evicted(count: number): void;
  /** A stale entry was served while its refresh was already running (no second refresh). */
  staleServedDuringRefresh(): void;
  /** A background refresh query was started. */
  backgroundRefreshStarted(): void;
}

export interface CacheGaugeSource {
  readonly itemCount: number;
  readonly bytes: number;
  readonly maxBytes: number;
}

/** Declares the `<prefix>_cache_*` family on the runtime's registry and returns its recorder. */
export function registerCacheMetrics(registry: MetricsRegistry, prefix: CacheMetricPrefix, source: CacheGaugeSource): CacheMetrics {
  const name = (suffix: string) => `${prefix}_cache_${suffix}`;
  const what = prefix === 'results' ? 'SQL results' : prefix === 'search_results' ? 'search results' : 'embeddings';
  const requests = registry.counter(name('requests'), { description: `Lookups in the ${what} cache.` });
  const hits = registry.counter(name('hits'), { description: `Lookups answered by the ${what} cache (fresh or stale).` });
  const misses = registry.counter(name('misses'), { description: `Lookups the ${what} cache could not answer.` });
  const evictions = registry.counter(name('evictions'), { description: `Entries of the ${what} cache dropped for size or expiry.` });
  const staleSwr = registry.counter(name('stale_swr_count'), { description: `Stale ${what} served while a refresh was already running.` });
  const swrQueries = registry.counter(name('swr_background_query_count'), { description: `Background refreshes started by stale-while-revalidate (${what}).` });
  // Series exist from the start, so a scrape shows 0 rather than nothing.
  for (const counter of [requests, hits, misses, evictions, staleSwr, swrQueries]) counter.add(0);
  let hitCount = 0;
  let requestCount = 0;
  registry.gauge(name('items_count'), { description: `Entries held by the ${what} cache.` }, () => [{ value: source.itemCount }]);
  registry.gauge(name('size_bytes'), { description: `Bytes held by the ${what} cache.`, unit: 'By' }, () => [{ value: source.bytes }]);
  registry.gauge(name('max_size_bytes'), { description: `Configured maximum size of the ${what} cache.`, unit: 'By' }, () => [{ value: source.maxBytes }]);
  registry.gauge(name('hit_ratio'), { description: `Hits per lookup of the ${what} cache since start.` }, () => [{ value: requestCount === 0 ? 0 : hitCount / requestCount }]);
  return {
    request(hit) {
      requestCount += 1;
      requests.add(1);
      if (hit) {
        hitCount += 1;
        hits.add(1);
      } else {
        misses.add(1);
      }
    },
    evicted(count) {
      if (count > 0) evictions.add(count);
    },
    staleServedDuringRefresh: () => staleSwr.add(1),
    backgroundRefreshStarted: () => swrQueries.add(1),
  };
}
