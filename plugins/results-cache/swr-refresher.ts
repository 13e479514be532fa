import type { Logger } from '../../core/log.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import type { QueryRequest } from '../../core/pipeline/types.js';
import { parametersText, type CacheKeySource } from './cache-key.js';
import type { CacheMetrics } from './metrics.js';

/**
 * Stale-while-revalidate's background refreshes: at most one per entry at a time, run as
 * the caller who got the stale answer (same principal, so same namespace and the same
 * statement checks), through the whole pipeline like any query.
 *
 * The refresh query must skip the lookup (it would find the stale entry) and store under
 * the entry's key (a custom key is not in its SQL): it is announced here before it starts
 * and the lookup tap `claim`s it by principal, SQL and parameters.
 */
export class SwrRefresher {
  readonly #runtime: Pick<PluginRuntime, 'query'>;
  readonly #log: Logger;
  readonly #metrics: () => CacheMetrics | undefined;
  /** Entry hashes being refreshed. */
  readonly #running = new Set<string>();
  /** Announced refresh queries not yet seen by the lookup: token -> key to store under. */
  readonly #announced = new Map<string, CacheKeySource[]>();

  constructor(options: { runtime: Pick<PluginRuntime, 'query'>; log: Logger; metrics: () => CacheMetrics | undefined }) {
    this.#runtime = options.runtime;
    this.#log = options.log;
    this.#metrics = options.metrics;
  }

  /** Refreshes in progress (tests, shutdown). */
  get runningCount(): number {
    return this.#running.size;
  }

  /** Starts the refresh of a stale entry unless one is running for it. */
  start(request: QueryRequest, key: CacheKeySource, hash: string): void {
    if (this.#running.has(hash)) {
      this.#metrics()?.staleServedDuringRefresh();
      return;
    }
    this.#running.add(hash);
    this.#metrics()?.backgroundRefreshStarted();
    const token = tokenOf(request);
    const keys = this.#announced.get(token) ?? [];
    keys.push(key);
    this.#announced.set(token, keys);
    // After the stale answer is on its way: the refresh must not delay it.
    setImmediate(() => {
      this.#run(request)
        .catch((error: unknown) => {
          // While the runtime stops, refusing new work is expected, not worth a warning.
          const stopping = (error as { code?: string }).code === 'RUNTIME_SHUTTING_DOWN';
          this.#log[stopping ? 'debug' : 'warn']('stale-while-revalidate refresh failed; the stale entry expires as usual', { error: (error as Error).message });
        })
        .finally(() => {
          this.#running.delete(hash);
          this.#withdraw(token, key);
        });
    });
  }

  /** For the lookup tap: the key a background refresh query stores under, or undefined for any other query. */
  claim(request: QueryRequest): CacheKeySource | undefined {
    if (request.protocol !== 'internal' || this.#announced.size === 0) return undefined;
    const token = tokenOf(request);
    const keys = this.#announced.get(token);
    const key = keys?.shift();
    if (keys && keys.length === 0) this.#announced.delete(token);
    return key;
  }

  async #run(request: QueryRequest): Promise<void> {
    const { result } = await this.#runtime.query({
      sql: request.sql,
      parameters: request.parameters,
      protocol: 'internal',
      principal: request.principal,
    });
    // Reading to the end is what lets the store tap keep the fresh result.
    for await (const batch of result.batches) void batch;
  }

  #withdraw(token: string, key: CacheKeySource): void {
    const keys = this.#announced.get(token);
    if (!keys) return;
    const index = keys.indexOf(key);
    if (index >= 0) keys.splice(index, 1);
    if (keys.length === 0) this.#announced.delete(token);
  }
}

function tokenOf(request: Pick<QueryRequest, 'principal' | 'sql' | 'parameters'>): string {
  return `${request.principal.id}\u0000${request.sql}\u0000${parametersText(request.parameters)}`;
}
