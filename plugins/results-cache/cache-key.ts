import { LRUCache } from 'lru-cache';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { QueryRequest } from '../../core/pipeline/types.js';
import { PlanIdentities } from './plan-identities.js';

/** Request headers that set a custom key; Spice's name is accepted for Spice clients. */
export const CUSTOM_KEY_HEADERS = ['quarry-cache-key', 'spice-cache-key'] as const;
const CUSTOM_KEY_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export type CacheKeyType = 'plan' | 'sql';

/** Who may share an entry: everyone (no auth) or one principal. */
export type CacheScope = 'shared' | 'user';

/** A key with its hash under the cache's hashing algorithm. */
export interface HashedKey {
  readonly key: CacheKeySource;
  readonly hash: string;
}

/** What a query's entry is found by. */
export interface CacheKeySource {
  /** The unhashed key: namespace, what identifies the query, parameters. */
  readonly material: string;
  readonly scope: CacheScope;
  /** True when the client chose the key with a header. */
  readonly custom: boolean;
}

/** The principal's namespace; the anonymous caller (no auth plugin) shares one. */
export function scopeOf(request: Pick<QueryRequest, 'principal'>): CacheScope {
  return request.principal.id === 'anonymous' ? 'shared' : 'user';
}

/** The custom key of a request, validated; undefined when no header sets one. */
export function customKeyOf(headers: Readonly<Record<string, string | undefined>> | undefined): string | undefined {
  if (!headers) return undefined;
  for (const name of CUSTOM_KEY_HEADERS) {
    const value = headers[name];
    if (value === undefined) continue;
    if (!CUSTOM_KEY_PATTERN.test(value)) {
      const shown = value.length > 40 ? `${JSON.stringify(value.slice(0, 40))}... (${value.length} characters)` : JSON.stringify(value);
      throw new QuarryError('CACHE_KEY_INVALID', `the ${name} header must be 1 to 128 characters of A-Z, a-z, 0-9, "_" and "-"; got ${shown}`);
    }
    return value;
  }
  return undefined;
}

/**
 * Parameters as stable text. Types stay apart (`1`, `"1"` and `1n` bind differently), so
 * values JSON would merge are tagged: bigints, dates, bytes.
 */
export function parametersText(parameters: readonly unknown[]): string {
  if (parameters.length === 0) return '';
  return JSON.stringify(parameters, function (this: Record<string, unknown>, key, value: unknown) {
    const original = this[key];
    if (typeof original === 'bigint') return { $bigint: original.toString() };
    if (original instanceof Date) return { $date: original.toISOString() };
    if (original instanceof Uint8Array) return { $bytes: Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64') };
    return value;
  });
}

/**
 * Statements reading the runtime's own state are never cached: the `runtime` schema
 * (task history and other plugin tables), the catalog views, DuckDB's metadata functions
 * and SHOW statements (`SHOW TABLES` lists what can be queried, which changes as datasets
 * and views register). Matched on the text, conservatively: a false match only skips the cache.
 */
const SYSTEM_TABLES = /(?:^|[^\w$])"?(?:runtime|information_schema|pg_catalog)"?\s*\.|\b(?:duckdb|pragma)_\w+\s*\(|^\s*show\b/i;

export function readsSystemTables(request: Pick<QueryRequest, 'sql' | 'datasets'>): boolean {
  return SYSTEM_TABLES.test(request.sql) || request.datasets.some((dataset) => dataset.startsWith('runtime.'));
}

/**
 * Builds key material per `cache_key_type`. `plan` keys by the logical plan where another text
 * may share it (plan-identities.ts: a text is planned once, and only when a text writing the
 * same constants was seen); the identities are remembered per text until a dataset refresh.
 */
export class CacheKeyBuilder {
  readonly keyType: CacheKeyType;
  readonly #identities: PlanIdentities | undefined;

  /**
   * Keys of parameterless queries without a custom key, hashed, by SQL text then principal:
   * a repeated query (every cache hit) builds and hashes its key once, not per request (a
   * plan key's material is the whole plan text, a few KiB to hash each time). Two levels, so
   * a lookup hashes the request's own strings and builds none.
   */
  readonly #hashed = new LRUCache<string, Map<string, HashedKey>>({
    maxSize: 32 * 1024 * 1024,
    sizeCalculation: (byPrincipal, sql) => {
      let size = sql.length * 2 + 64;
      for (const [principal, hashed] of byPrincipal) size += (hashed.key.material.length + principal.length + hashed.hash.length) * 2 + 64;
      return size;
    },
  });

  /** `planText` plans any statement text (the engine's stand-alone planner); plan keys only. */
  constructor(keyType: CacheKeyType, planText: (sql: string) => Promise<string>) {
    this.keyType = keyType;
    this.#identities = keyType === 'plan' ? new PlanIdentities(planText) : undefined;
  }

  /** Whether keying this text will plan it (the pipeline then starts the plan beside its prepare). */
  needsPlan(sql: string): boolean {
    return this.#identities?.needsPlan(sql) ?? false;
  }

  /** The key of a query, hashed with `hasher`; remembered for parameterless queries. */
  async hashed(request: QueryRequest, hasher: (material: string) => string): Promise<HashedKey> {
    const memoisable = request.parameters.length === 0 && customKeyOf(request.inbound?.headers) === undefined;
    const known = memoisable ? this.#hashed.get(request.sql)?.get(request.principal.id) : undefined;
    if (known !== undefined) return known;
    const key = await this.build(request);
    const hashed = { key, hash: hasher(key.material) };
    if (memoisable) {
      const byPrincipal = this.#hashed.get(request.sql) ?? new Map<string, HashedKey>();
      byPrincipal.set(request.principal.id, hashed);
      // Set again: the entry's size is recounted with the new principal.
      this.#hashed.set(request.sql, byPrincipal);
    }
    return hashed;
  }

  /**
   * The remembered key of a parameterless query without a custom key header, if `hashed`
   * made it before; never builds one (no engine work, nothing thrown).
   */
  known(request: QueryRequest): HashedKey | undefined {
    if (request.parameters.length > 0) return undefined;
    const headers = request.inbound?.headers;
    if (headers !== undefined && (headers[CUSTOM_KEY_HEADERS[0]] !== undefined || headers[CUSTOM_KEY_HEADERS[1]] !== undefined)) return undefined;
    return this.#hashed.get(request.sql)?.get(request.principal.id);
  }

  async build(request: QueryRequest): Promise<CacheKeySource> {
    const scope = scopeOf(request);
    const namespace = request.principal.id;
    const custom = customKeyOf(request.inbound?.headers);
    // A custom key names the result by itself: SQL and parameters are not part of it (as in Spice).
    if (custom !== undefined) return { material: `${namespace}\u0000custom\u0000${custom}`, scope, custom: true };
    const identity = this.#identities ? await this.#identities.identity(request.sql, () => request.logicalPlan()) : `sql\u0000${request.sql}`;
    return { material: `${namespace}\u0000${identity}\u0000${parametersText(request.parameters)}`, scope, custom: false };
  }

  /** Forgets memoised plans (a dataset was refreshed: plans of `SELECT *` may change). */
  forgetPlans(): void {
    this.#identities?.forget();
    this.#hashed.clear();
  }
}
