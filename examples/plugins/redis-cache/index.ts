/**
 * A custom results cache kept in Redis: every quarryd pointed at the same Redis shares
 * the cached results (and their invalidation). It uses the same hooks as the built-in
 * `results-cache` plugin, which should be switched off beside it:
 *
 *   plugins:
 *     - name: results-cache
 *       enabled: false
 *     - from: ./plugins/redis-cache/index.ts
 *       params:
 *         url: redis://127.0.0.1:6379
 *         item_ttl: 30s
 *
 * The core classifies each statement before `cache.lookup` (`request.kind`), so the
 * plugin only ever answers and stores reads; see README.md beside this file.
 */
import { xxh3 } from '@node-rs/xxhash';
import { Table, tableFromIPC, tableToIPC, type RecordBatch } from 'apache-arrow';
import { STAGE, definePlugin, parseDuration } from 'quarry';
import type { PluginRuntime, QueryRequest, QueryResult, QuarryPlugin } from 'quarry/plugin';
import { RedisResultStore } from './redis-store.js';

const NAME = 'redis-cache';

/** What the lookup learnt about a query, for the store tap. */
interface Pending {
  readonly entryKey: string;
  readonly generations: string[];
}

export default function createRedisCachePlugin(params: Record<string, unknown>): QuarryPlugin {
  const url = typeof params['url'] === 'string' ? params['url'] : 'redis://127.0.0.1:6379';
  const ttlMs = parseDuration(String(params['item_ttl'] ?? '30s'));
  if (ttlMs === undefined || ttlMs <= 0) throw new Error(`params.item_ttl must be a duration such as 30s, got ${JSON.stringify(params['item_ttl'])}`);
  const prefix = typeof params['prefix'] === 'string' ? params['prefix'] : 'quarry:results:';
  const store = new RedisResultStore(url, prefix);

  return definePlugin({
    name: NAME,
    apply(runtime: PluginRuntime) {
      const { hooks, log } = runtime;
      // I/O starts in `startup`, never in `apply`.
      hooks.startup.tapPromise(NAME, async () => {
        await store.connect();
        log.info('results cached in Redis', { url, item_ttl_ms: ttlMs });
      });
      hooks.shutdown.stop.tapPromise({ name: NAME, stage: STAGE.STOP_PLUGINS }, () => store.close());

      hooks.cache.lookup.tapPromise({ name: NAME, stage: STAGE.CACHE }, async (request) => {
        // Never writes, never the runtime's own tables; `kind` is known before the lookup.
        if (request.kind !== 'read' || /\bruntime\s*\./i.test(request.sql)) return undefined;
        try {
          const entryKey = store.entryKey(await keyHash(request));
          const pending: Pending = { entryKey, generations: await store.generations(request.datasets) };
          request.state.set(NAME, pending);
          if (/\bno-cache\b/i.test(request.inbound?.headers['cache-control'] ?? '')) return undefined;
          const bytes = await store.get(entryKey);
          if (!bytes) return undefined;
          const table = tableFromIPC(bytes);
          return { schema: table.schema, batches: iterate(table.batches), cacheStatus: 'HIT', headers: {} };
        } catch (error) {
          // An unreachable cache is a miss, not a failed query.
          log.warn('Redis lookup failed; running the query', { error: (error as Error).message });
          return undefined;
        }
      });

      hooks.cache.store.tap({ name: NAME, stage: STAGE.CACHE }, (result, request) => {
        const pending = request.state.get(NAME) as Pending | undefined;
        if (!pending) return result;
        return { ...result, cacheStatus: 'MISS', batches: keepCopy(result, (batches) => save(request, result, batches, pending)) };
      });

      const save = (request: QueryRequest, result: QueryResult, batches: RecordBatch[], pending: Pending) => {
        const bytes = tableToIPC(new Table(result.schema, batches), 'stream');
        store.storeIfCurrent(pending.entryKey, bytes, ttlMs, request.datasets, pending.generations).catch((error: unknown) => {
          log.warn('Redis store failed', { error: (error as Error).message });
        });
      };

      hooks.cache.invalidate.tapPromise({ name: NAME, stage: STAGE.CACHE }, async ({ datasets }) => {
        await store.invalidate(datasets).catch((error: unknown) => log.warn('Redis invalidation failed', { error: (error as Error).message }));
      });
    },
  });
}

/** The caller's namespace, the normalised plan (the SQL text if it has none), and the parameters. */
async function keyHash(request: QueryRequest): Promise<string> {
  const plan = await request.logicalPlan().catch(() => `sql:${request.sql}`);
  const parameters = JSON.stringify(request.parameters, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
  return xxh3.xxh128(`${request.principal.id}\u0000${plan}\u0000${parameters}`).toString(16);
}

async function* iterate(batches: readonly RecordBatch[]): AsyncGenerator<RecordBatch> {
  yield* batches;
}

/** Passes the batches on and hands a copy to `save` when the stream ended normally. */
function keepCopy(result: QueryResult, save: (batches: RecordBatch[]) => void): AsyncIterable<RecordBatch> {
  return {
    async *[Symbol.asyncIterator]() {
      const kept: RecordBatch[] = [];
      for await (const batch of result.batches) {
        kept.push(batch);
        yield batch;
      }
      save(kept);
    },
  };
}
