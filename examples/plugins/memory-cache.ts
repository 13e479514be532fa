/**
 * A custom results cache: results kept in this process's memory for `ttl`, per caller, and
 * dropped when a dataset they read changes. It takes over from the built-in results-cache,
 * which is switched off beside it:
 *
 *   plugins:
 *     - name: results-cache
 *       enabled: false
 *     - from: ./memory-cache.ts
 *       params: { ttl: 30s, max_entries: 1000 }
 *
 * The cache hooks run behind every door, so one plugin serves HTTP, Flight and MCP alike.
 */
import { definePlugin, parseDuration, STAGE } from 'quarry';
import type { QueryRequest, QueryResult, QuarryPlugin } from 'quarry/plugin';

const NAME = 'memory-cache';

interface Entry {
  readonly schema: QueryResult['schema'];
  readonly batches: ReadonlyArray<BatchOf<QueryResult>>;
  readonly datasets: readonly string[];
  readonly expiresAt: number;
}

/** The record batch type of a result's stream, taken from the published types. */
type BatchOf<Result extends QueryResult> = Result['batches'] extends AsyncIterable<infer Batch> ? Batch : never;

export default function memoryCache(params: Record<string, unknown>): QuarryPlugin {
  const ttlMs = parseDuration(String(params['ttl'] ?? '30s'));
  if (ttlMs === undefined || ttlMs <= 0) throw new Error(`params.ttl must be a duration such as 30s, got ${JSON.stringify(params['ttl'])}`);
  const maxEntries = Number(params['max_entries'] ?? 1000);
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error(`params.max_entries must be a whole number of at least 1, got ${JSON.stringify(params['max_entries'])}`);
  // A Map keeps insertion order: the first key is the oldest entry.
  const entries = new Map<string, Entry>();

  return definePlugin({
    name: NAME,
    apply(runtime) {
      const { hooks } = runtime;

      hooks.cache.lookup.tap({ name: NAME, stage: STAGE.CACHE }, (request) => {
        // Only reads, never the runtime's own tables (task history changes with every query).
        if (request.kind !== 'read' || /\bruntime\s*\./i.test(request.sql)) return undefined;
        const key = cacheKey(request);
        request.state.set(NAME, key);
        const entry = entries.get(key);
        if (entry === undefined || entry.expiresAt <= Date.now()) return undefined;
        return { schema: entry.schema, batches: replay(entry.batches), cacheStatus: 'HIT', headers: {} };
      });

      // Runs only for results the engine produced: wrap the stream to keep a copy.
      hooks.cache.store.tap({ name: NAME, stage: STAGE.CACHE }, (result, request) => {
        const key = request.state.get(NAME);
        if (typeof key !== 'string') return result;
        return {
          ...result,
          cacheStatus: 'MISS',
          batches: keepCopy(result.batches, (batches) => {
            entries.delete(key);
            entries.set(key, { schema: result.schema, batches, datasets: request.datasets, expiresAt: Date.now() + ttlMs });
            for (const oldest of entries.keys()) {
              if (entries.size <= maxEntries) break;
              entries.delete(oldest);
            }
          }),
        };
      });

      hooks.cache.invalidate.tap({ name: NAME, stage: STAGE.CACHE }, ({ datasets }) => {
        for (const [key, entry] of entries) {
          if (entry.datasets.some((dataset) => datasets.includes(dataset))) entries.delete(key);
        }
      });
    },
  });
}

/** Per caller (one team never sees another's results), per statement text and parameters. */
function cacheKey(request: QueryRequest): string {
  const parameters = JSON.stringify(request.parameters, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value));
  return `${request.principal.id}\u0000${request.sql}\u0000${parameters}`;
}

async function* replay<Batch>(batches: readonly Batch[]): AsyncGenerator<Batch> {
  yield* batches;
}

/** Passes the batches on; hands a copy to `save` only when the stream ended whole (a cancelled or failed result is never kept). */
function keepCopy<Batch>(source: AsyncIterable<Batch>, save: (batches: Batch[]) => void): AsyncIterable<Batch> {
  return {
    async *[Symbol.asyncIterator]() {
      const kept: Batch[] = [];
      for await (const batch of source) {
        kept.push(batch);
        yield batch;
      }
      save(kept);
    },
  };
}
