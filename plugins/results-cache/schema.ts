import { z } from 'zod';
import { durationSchema, sizeSchema } from '../../core/units.js';

/** `runtime.caching`: the SQL results, search results and embeddings caches (spec, runtime.caching). */
const MIB = 1024 * 1024;

const fields = {
  enabled: () => z.boolean().describe('Cache on or off (default true).'),
  max_size: () => sizeSchema().describe('Maximum cache size (default 128MiB).'),
  eviction_policy: () => z.enum(['lru', 'tiny_lfu']).describe('lru (default) or tiny_lfu (higher hit rate for skewed access).'),
  item_ttl: () => durationSchema().describe('Entry time to live (default 1s).'),
  hashing_algorithm: () =>
    z.enum(['xxh3', 'ahash', 'siphash', 'blake3', 'xxh32', 'xxh64', 'xxh128']).describe('Hash of cache keys (default xxh3; siphash resists hash flooding).'),
  cache_key_type: () => z.enum(['plan', 'sql']).describe('plan (default): key is the logical plan; sql: key is the raw SQL text.'),
  encoding: () => z.enum(['none', 'zstd']).describe('Compression of cached results: none (default) or zstd.'),
  stale_while_revalidate_ttl: () => durationSchema().describe('Serve expired entries while refreshing in the background; 0s (default) disables.'),
};

const commonShape = {
  enabled: fields.enabled().default(true),
  max_size: fields.max_size().default(128 * MIB),
  eviction_policy: fields.eviction_policy().default('lru'),
  item_ttl: fields.item_ttl().default(1000),
  hashing_algorithm: fields.hashing_algorithm().default('xxh3'),
};

export const sqlResultsCacheSchema = z.strictObject({
  ...commonShape,
  cache_key_type: fields.cache_key_type().default('plan'),
  encoding: fields.encoding().default('none'),
  stale_while_revalidate_ttl: fields.stale_while_revalidate_ttl().default(0),
});

export const cacheSchema = z.strictObject(commonShape);

export const cachingSchema = z
  .strictObject({
    sql_results: sqlResultsCacheSchema.prefault({}).describe('Results of SQL queries (HTTP /v1/sql, Flight).'),
    search_results: cacheSchema.prefault({}).describe('Results of search requests.'),
    embeddings: cacheSchema.prefault({}).describe('Computed embeddings.'),
  })
  .prefault({})
  .describe('Result caches.');

export type SqlResultsCacheConfig = z.output<typeof sqlResultsCacheSchema>;
export type CacheConfig = z.output<typeof cacheSchema>;
export type CachingConfig = z.output<typeof cachingSchema>;

/**
 * Deprecated `runtime.results_cache` (Spice v1): the sql_results fields, with the v1 name
 * `cache_max_size` for `max_size`. Nothing is defaulted here: unset fields take the
 * sql_results defaults when it is mapped.
 */
export const resultsCacheSchema = z
  .strictObject({
    enabled: fields.enabled().optional(),
    cache_max_size: fields.max_size().optional().describe('v1 name of max_size.'),
    max_size: fields.max_size().optional(),
    eviction_policy: fields.eviction_policy().optional(),
    item_ttl: fields.item_ttl().optional(),
    hashing_algorithm: fields.hashing_algorithm().optional(),
    cache_key_type: fields.cache_key_type().optional(),
    encoding: fields.encoding().optional(),
    stale_while_revalidate_ttl: fields.stale_while_revalidate_ttl().optional(),
  })
  .superRefine((section, context) => {
    if (section.cache_max_size !== undefined && section.max_size !== undefined) {
      context.addIssue({ code: 'custom', path: ['cache_max_size'], message: 'cache_max_size is the old name of max_size and both are set: keep max_size' });
    }
  })
  .optional()
  .describe('Deprecated: use runtime.caching.sql_results. Used for it only when runtime.caching.sql_results is not set.');

export type ResultsCacheConfig = z.output<typeof resultsCacheSchema>;
