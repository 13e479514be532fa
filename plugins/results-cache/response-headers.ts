import type { CacheStatus } from '../../core/pipeline/types.js';
import type { CacheScope } from './cache-key.js';

export interface ResponseHeaderFacts {
  readonly status: CacheStatus;
  readonly scope: CacheScope;
  readonly customKey: boolean;
  readonly itemTtlMs: number;
  readonly staleWhileRevalidateMs: number;
  /** For HIT: how much longer the entry is fresh. */
  readonly freshForMs?: number;
}

const USER_VARY = 'X-API-Key, Authorization';
const CUSTOM_KEY_VARY = 'Quarry-Cache-Key, Spice-Cache-Key';

/**
 * Headers (HTTP) and metadata (Flight) of a result the cache looked at, beside the core's
 * `x-cache`:
 * - `results-cache-status`: the same status under Spice's header name.
 * - `results-cache-scope`: `shared` (no auth: one namespace) or `user` (one per principal).
 * - `vary`: a per-principal answer varies with the credential headers, a custom-keyed one
 *   with the key header, so an HTTP cache in front never serves it to someone else.
 * - `cache-control` when stale-while-revalidate is on: how long a client or proxy may reuse
 *   the answer (`max-age=0` once stale), `private` when it belongs to one principal.
 */
export function cacheResponseHeaders(facts: ResponseHeaderFacts): Record<string, string> {
  const headers: Record<string, string> = { 'results-cache-status': facts.status, 'results-cache-scope': facts.scope };
  // Built without arrays: this runs on every cache hit.
  const user = facts.scope === 'user';
  if (user || facts.customKey) headers['vary'] = user && facts.customKey ? `${USER_VARY}, ${CUSTOM_KEY_VARY}` : user ? USER_VARY : CUSTOM_KEY_VARY;
  if (facts.staleWhileRevalidateMs > 0) {
    const maxAgeMs = facts.status === 'HIT' ? (facts.freshForMs ?? 0) : facts.status === 'STALE' ? 0 : facts.itemTtlMs;
    const maxAge = `max-age=${Math.max(0, Math.floor(maxAgeMs / 1000))}, stale-while-revalidate=${Math.floor(facts.staleWhileRevalidateMs / 1000)}`;
    headers['cache-control'] = user ? `private, ${maxAge}` : maxAge;
  }
  return headers;
}
