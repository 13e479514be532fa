import type { RecordBatch } from 'apache-arrow';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { Logger } from '../../core/log.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import type { CacheInvalidation, CacheStatus, EncodedAnswer, QueryRequest, QueryResult, ResultMemo } from '../../core/pipeline/types.js';
import { parseCacheControl, type CacheDirectives } from '../../core/http/cache-control.js';
import { readsSystemTables, type CacheKeyBuilder, type CacheKeySource } from './cache-key.js';
import { cacheResponseHeaders } from './response-headers.js';
import type { CacheLookup, GenerationSnapshot, ResultCache } from './result-cache.js';
import { batchViewBytes, decodeStored, encodeResult, type ResultEncoding, type StoredResult } from './stored-result.js';
import { SwrRefresher } from './swr-refresher.js';

/** What the lookup decided for one query, read again by the store tap (`request.state`). */
interface QueryCacheState {
  readonly key: CacheKeySource;
  readonly hash: string;
  /** Dataset generations when the query started: a result computed before a change is not stored. */
  readonly generations: GenerationSnapshot;
  readonly directives: CacheDirectives;
  /** What the response says if the engine answers: MISS, or BYPASS when the lookup was skipped. */
  status: CacheStatus;
}

export interface SqlResultsCacheOptions {
  readonly name: string;
  readonly runtime: PluginRuntime;
  /** The cache, once start-up built it. */
  readonly cache: () => ResultCache<StoredResult> | undefined;
  readonly keys: CacheKeyBuilder;
  readonly encoding: ResultEncoding;
  readonly log: Logger;
}

/**
 * The `sql_results` cache on the query pipeline:
 *   cache.lookup     reads only (`kind` is known before the lookup; writes and system tables
 *                    never touch the cache): answer HIT or STALE, or note the key for the store
 *   cache.store      wrap the engine's batches, keep a copy as they stream, store it at the end
 *   cache.invalidate a dataset changed: drop (or, with SWR on a refresh, mark stale) what read it
 */
export function tapSqlResultsCache(options: SqlResultsCacheOptions): SwrRefresher {
  const { name, runtime, keys } = options;
  const refresher = new SwrRefresher({ runtime, log: options.log, metrics: () => options.cache()?.metrics });
  const facts = (cache: ResultCache<StoredResult>, key: CacheKeySource, status: CacheStatus, found?: CacheLookup<StoredResult>) =>
    cacheResponseHeaders({
      status,
      scope: key.scope,
      customKey: key.custom,
      itemTtlMs: cache.itemTtlMs,
      staleWhileRevalidateMs: cache.staleWhileRevalidateMs,
      freshForMs: found?.freshForMs,
    });

  runtime.hooks.cache.lookup.tapPromise({ name, stage: STAGE.CACHE }, async (request) => {
    const cache = options.cache();
    if (!cache || request.kind !== 'read' || readsSystemTables(request)) return undefined;
    const directives = parseCacheControl(request.inbound?.headers['cache-control']);
    const refreshing = refresher.claim(request);
    const { key, hash } = refreshing ? { key: refreshing, hash: cache.keyOf(refreshing.material) } : await keys.hashed(request, (material) => cache.keyOf(material));
    const state: QueryCacheState = { key, hash, generations: cache.generationsOf(request.datasets), directives, status: 'MISS' };
    request.state.set(name, state);
    if (refreshing || directives.noCache) {
      state.status = 'BYPASS';
      if (directives.onlyIfCached) throw notCached(request, 'no-cache skips the lookup');
      return undefined;
    }
    const found = cache.find(key.material, hash);
    const verdict = judge(found, directives, cache.staleWhileRevalidateMs);
    cache.metrics?.request(verdict !== undefined);
    if (!found || !verdict) {
      if (directives.onlyIfCached) throw notCached(request, found ? 'the cached entry does not satisfy the request Cache-Control' : 'no entry is cached for this query');
      if (directives.noStore) state.status = 'BYPASS';
      return undefined;
    }
    if (verdict === 'STALE' && cache.staleWhileRevalidateMs > 0) refresher.start(request, key, hash);
    const stored = found.entry.value;
    const headers = facts(cache, state.key, verdict, found);
    const memo = memoOf(cache, found);
    // Every door the entry was encoded for before: no decoding at all.
    if (stored.rendered.size > 0) return { schema: stored.schema, batches: lazyReplay(stored), cacheStatus: verdict, headers, memo };
    const { schema, batches } = decodeStored(stored);
    return { schema, batches: replay(batches), cacheStatus: verdict, headers, memo };
  });

  // A door's fast lane: a fresh entry with a body this door encoded before, for a request
  // with nothing that changes the lookup (no Cache-Control, no custom key, no parameters).
  // Anything else returns undefined at once and takes the lookup above.
  runtime.hooks.cache.peek.tap({ name, stage: STAGE.CACHE }, (request, encoding): EncodedAnswer | undefined => {
    const cache = options.cache();
    if (!cache || request.kind !== 'read' || request.inbound?.headers['cache-control'] !== undefined) return undefined;
    const hashed = keys.known(request);
    if (hashed === undefined) return undefined;
    const found = cache.find(hashed.key.material, hashed.hash);
    if (found === undefined || found.freshForMs <= 0) return undefined;
    const body = found.entry.value.rendered.get(encoding);
    if (body === undefined) return undefined;
    const headers = facts(cache, hashed.key, 'HIT', found);
    return { body, rows: found.entry.value.rows, cacheStatus: 'HIT', headers, take: () => cache.metrics?.request(true) };
  });

  runtime.hooks.cache.store.tap({ name, stage: STAGE.CACHE }, (result, request) => {
    const state = request.state.get(name) as QueryCacheState | undefined;
    const cache = options.cache();
    if (!state || !cache) return result;
    Object.assign(result.headers, facts(cache, state.key, state.status));
    const batches = state.directives.noStore ? result.batches : keepCopy(result, (kept) => save(cache, request, state, result, kept), cache.maxBytes / MAX_ENTRY_FRACTION);
    return { schema: result.schema, batches, cacheStatus: state.status, headers: result.headers };
  });

  const save = (cache: ResultCache<StoredResult>, request: QueryRequest, state: QueryCacheState, result: QueryResult, kept: readonly RecordBatch[]) => {
    // Checked before encoding to skip the work; `set` checks again (nothing can change in between: all synchronous).
    if (!cache.isCurrent(state.generations)) return;
    try {
      const stored = encodeResult(result.schema, kept, options.encoding);
      cache.set(state.key.material, stored, { bytes: stored.bytes, datasets: request.datasets, generations: state.generations, key: state.hash });
    } catch (error) {
      options.log.warn('a result could not be cached', { query: request.id, error: (error as Error).message });
    }
  };

  runtime.hooks.cache.invalidate.tap({ name, stage: STAGE.CACHE }, (invalidation: CacheInvalidation) => {
    const cache = options.cache();
    if (!cache) return;
    // Refreshes may change a dataset's columns, and so the plan of `SELECT *`.
    if (invalidation.reason === 'refresh') keys.forgetPlans();
    // With SWR a refresh leaves entries stale (served once more while recomputed) instead of
    // a latency cliff on every refresh; a write evicts, so a writer reads its own write.
    const mode = invalidation.reason === 'refresh' && cache.staleWhileRevalidateMs > 0 ? 'stale' : 'evict';
    const touched = cache.invalidate(invalidation.datasets, mode);
    if (touched > 0) options.log.debug('cached results invalidated', { datasets: invalidation.datasets.join(','), reason: invalidation.reason, entries: touched, mode });
  });

  return refresher;
}

/**
 * HIT for a fresh entry that meets the request's limits; STALE for an expired one the
 * request accepts (`max-stale`) or, by default, inside the stale-while-revalidate window.
 */
function judge(found: CacheLookup<StoredResult> | undefined, directives: CacheDirectives, staleWhileRevalidateMs: number): 'HIT' | 'STALE' | undefined {
  if (!found) return undefined;
  if (directives.maxAgeSeconds !== undefined && found.ageMs > directives.maxAgeSeconds * 1000) return undefined;
  if (found.freshForMs > 0) {
    if (directives.minFreshSeconds !== undefined && found.freshForMs < directives.minFreshSeconds * 1000) return undefined;
    return 'HIT';
  }
  if (directives.maxStaleSeconds !== undefined) return -found.freshForMs <= directives.maxStaleSeconds * 1000 ? 'STALE' : undefined;
  if (directives.minFreshSeconds !== undefined) return undefined;
  return staleWhileRevalidateMs > 0 ? 'STALE' : undefined;
}

function notCached(request: QueryRequest, why: string): QuarryError {
  // The error response still says what the cache did.
  if (request.inbound) {
    request.inbound.responseHeaders['x-cache'] = 'MISS';
    request.inbound.responseHeaders['results-cache-status'] = 'MISS';
  }
  return new QuarryError('CACHE_ONLY_IF_CACHED_MISS', `Cache-Control: only-if-cached, and ${why}: the query was not run (send it without only-if-cached to run it)`);
}

/**
 * One result may use at most this fraction of max_size: a result as large as the cache
 * would evict everything else for one entry, and keeping and encoding it delays the end of
 * its own stream. Larger results stream through uncached.
 */
const MAX_ENTRY_FRACTION = 4;

/** Encoded bodies kept per entry at most this large each (larger ones are streamed anyway). */
const MAX_MEMO_BODY_BYTES = 64 * 1024;
/** Distinct encodings kept per entry (JSON, JSON as text, CSV, Arrow). */
const MAX_MEMO_BODIES = 4;

/** The entry's encoded bodies as a ResultMemo; kept bodies count in the entry's size. */
function memoOf(cache: ResultCache<StoredResult>, found: CacheLookup<StoredResult>): ResultMemo {
  const stored = found.entry.value;
  return {
    rows: stored.rows,
    get: (name) => stored.rendered.get(name),
    set: (name, body) => {
      if (body.byteLength > MAX_MEMO_BODY_BYTES || stored.rendered.size >= MAX_MEMO_BODIES || stored.rendered.has(name)) return;
      if (cache.grow(found.key, found.entry, body.byteLength)) stored.rendered.set(name, body);
    },
  };
}

/** The stored batches, decoded only if a door reads them (one that has no memoised body). */
function lazyReplay(stored: StoredResult): AsyncIterable<RecordBatch> {
  return {
    [Symbol.asyncIterator]() {
      let inner: AsyncIterator<RecordBatch> | undefined;
      const open = () => (inner ??= replay(decodeStored(stored).batches)[Symbol.asyncIterator]());
      return {
        next: () => open().next(),
        return: () => Promise.resolve({ done: true, value: undefined }),
      };
    },
  };
}

function replay(batches: readonly RecordBatch[]): AsyncIterable<RecordBatch> {
  return {
    [Symbol.asyncIterator]() {
      let index = 0;
      return {
        next: () => Promise.resolve(index < batches.length ? { done: false, value: batches[index++]! } : { done: true, value: undefined }),
        return: () => {
          index = batches.length;
          return Promise.resolve({ done: true, value: undefined });
        },
      };
    },
  };
}

/**
 * Passes the batches through and keeps them; `save` gets them just after the stream ended
 * normally. A result larger than the cache is dropped as soon as it is known to be, so
 * streaming a huge result does not hold it in memory; a cancelled or failed stream is not kept.
 */
function keepCopy(result: QueryResult, save: (kept: readonly RecordBatch[]) => void, limitBytes = Infinity): AsyncIterable<RecordBatch> {
  return {
    [Symbol.asyncIterator]() {
      const source = result.batches[Symbol.asyncIterator]();
      let kept: RecordBatch[] | undefined = [];
      let bytes = 0;
      return {
        async next() {
          let next: IteratorResult<RecordBatch>;
          try {
            next = await source.next();
          } catch (error) {
            kept = undefined;
            throw error;
          }
          if (next.done) {
            // Stored once the door has sent the end of the response: encoding the copy is no
            // part of the answer's latency. setImmediate runs before the loop polls sockets
            // again, so a request this response's client sends next already finds it.
            if (kept) setImmediate(save, kept);
            kept = undefined;
          } else if (kept) {
            bytes += batchViewBytes(next.value);
            if (bytes > limitBytes) kept = undefined;
            else kept.push(next.value);
          }
          return next;
        },
        async return() {
          kept = undefined;
          return (await source.return?.()) ?? { done: true, value: undefined };
        },
      };
    },
  };
}
