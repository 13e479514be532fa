import { QuarryError } from '../errors/quarry-error.js';

/**
 * The request `Cache-Control` directives the caches honour (RFC 9111 §5.2.1, as Spice reads
 * them), from the HTTP header or the Flight `cache-control` metadata: the results cache's
 * SQL answers and the search plugin's answers alike (so it lives in core).
 * Directives it does not know (`no-transform`, `stale-if-error`, ...) are ignored.
 */
export interface CacheDirectives {
  /** Skip the lookup; still store the fresh result (`BYPASS`). */
  readonly noCache: boolean;
  /** Do not store the result; a lookup may still answer. */
  readonly noStore: boolean;
  /** Answer from the cache or fail (504); never run the query. */
  readonly onlyIfCached: boolean;
  /** Accept an entry no older than this (seconds). */
  readonly maxAgeSeconds: number | undefined;
  /** Accept a fresh entry only if it stays fresh this much longer (seconds). */
  readonly minFreshSeconds: number | undefined;
  /** Accept an expired entry up to this many seconds past expiry; Infinity for a bare `max-stale`. */
  readonly maxStaleSeconds: number | undefined;
}

export const NO_DIRECTIVES: CacheDirectives = Object.freeze({
  noCache: false,
  noStore: false,
  onlyIfCached: false,
  maxAgeSeconds: undefined,
  minFreshSeconds: undefined,
  maxStaleSeconds: undefined,
});

export function parseCacheControl(header: string | undefined): CacheDirectives {
  if (header === undefined || header.trim() === '') return NO_DIRECTIVES;
  const directives = { ...NO_DIRECTIVES } as { -readonly [K in keyof CacheDirectives]: CacheDirectives[K] };
  for (const part of header.split(',')) {
    const [rawName = '', ...rest] = part.split('=');
    const name = rawName.trim().toLowerCase();
    const value = rest.length > 0 ? rest.join('=').trim().replace(/^"(.*)"$/, '$1') : undefined;
    switch (name) {
      case 'no-cache':
        directives.noCache = true;
        break;
      case 'no-store':
        directives.noStore = true;
        break;
      case 'only-if-cached':
        directives.onlyIfCached = true;
        break;
      case 'max-age':
        directives.maxAgeSeconds = seconds(name, value, header);
        break;
      case 'min-fresh':
        directives.minFreshSeconds = seconds(name, value, header);
        break;
      case 'max-stale':
        directives.maxStaleSeconds = value === undefined ? Infinity : seconds(name, value, header);
        break;
      default:
        break;
    }
  }
  return directives;
}

function seconds(name: string, value: string | undefined, header: string): number {
  if (value === undefined || !/^\d+$/.test(value)) {
    throw new QuarryError(
      'CACHE_CONTROL_INVALID',
      `Cache-Control "${header}": ${name} needs a whole number of seconds (e.g. ${name}=30), got ${value === undefined ? 'no value' : JSON.stringify(value)}`,
    );
  }
  return Number(value);
}
