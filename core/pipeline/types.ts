import type { StageClock } from './query-stages.js';
import type { RecordBatch, Schema } from 'apache-arrow';
import type { QuarryError } from '../errors/quarry-error.js';

/** The door a request came through. `internal` is the runtime's own queries. */
export type Protocol = 'http' | 'flight' | 'mcp' | 'internal';

/** Who is calling, as decided by the auth hook. */
export interface Principal {
  /** Stable id used to namespace caches and label task history, e.g. `apikey:3fa2c1d0`. */
  readonly id: string;
  /** How the caller proved who it is: `anonymous`, `api-key`, `client-certificate`, or a plugin's own. */
  readonly method: string;
  /** Whether the caller may write (DML, ingest, refresh). */
  readonly canWrite: boolean;
  /**
   * What a write refusal tells a caller that cannot write: the auth plugin that made the
   * principal says how to get write access (the API-key plugin: `use a key with :rw`); a door
   * that restricts a caller itself says so (the MCP sql tool is read-only for every key).
   * Absent: the refusal names no remedy.
   */
  readonly readOnlyBecause?: string;
  /**
   * Sees what the runtime scopes per caller: every caller's rows in `runtime.task_history`,
   * where others see their own. The anonymous caller (no auth) is one.
   */
  readonly admin?: boolean;
}

/** `this caller may only read`, with the principal's hint when it has one (see Principal.readOnlyBecause). */
export function readOnlyRefusal(principal: Principal): string {
  return principal.readOnlyBecause === undefined ? 'this caller may only read' : `this caller may only read (${principal.readOnlyBecause})`;
}

/** The caller when no auth plugin claims the request: may read and write, shares caches. */
export const ANONYMOUS: Principal = Object.freeze({ id: 'anonymous', method: 'anonymous', canWrite: true, admin: true });

/** What TLS said about the connection, when the listener is TLS. */
export interface TlsPeer {
  /** The client certificate verified against the configured CA. */
  readonly authorized: boolean;
  /** Subject of the presented client certificate, e.g. `CN=alice,O=Acme`; absent when none. */
  readonly subject: string | undefined;
  /** Why verification failed, when it did (Node's authorizationError). */
  readonly authorizationError: string | undefined;
}

/**
 * One inbound request on any transport, before it reaches a route. Built by the door,
 * passed through `hooks.request` then `hooks.auth`.
 */
export interface InboundRequest {
  readonly protocol: Protocol;
  /** The route template (`/v1/sql`, `/v1/datasets/:name/acceleration/refresh`) or gRPC method path. */
  readonly route: string;
  /** HTTP method, or `GRPC`. */
  readonly method: string;
  /** Header or metadata values by lower-case name (first value when repeated). */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly remoteAddress: string | undefined;
  readonly tls: TlsPeer | undefined;
  /** True for routes every caller may reach (`/health`, `/v1/ready`): auth plugins must let them pass. */
  readonly public: boolean;
  /** True when the route itself writes (refresh, DoPut); SQL writes are known later, from the statement. */
  readonly write: boolean;
  /** The caller; auth taps replace it. Starts as ANONYMOUS. */
  principal: Principal;
  /** Headers (HTTP) or trailing metadata (gRPC) that plugins want on the response, e.g. `www-authenticate`. */
  readonly responseHeaders: Record<string, string>;
  /** When the request reached the runtime (`performance.now()`), when the door knows: where its query's `door_in` stage starts. */
  readonly arrivedAt?: number;
}

/** What a statement does, decided by the engine before anything runs. */
export type StatementKind = 'read' | 'write' | 'other';

/** Outcome of the results cache for one query, sent as `x-cache`. */
export type CacheStatus = 'HIT' | 'MISS' | 'STALE' | 'BYPASS';

/** One query travelling through the pipeline, whatever door it came from. */
export interface QueryRequest {
  readonly id: string;
  readonly sql: string;
  /** Positional parameters for `$1`, `$2`, ... */
  readonly parameters: readonly unknown[];
  readonly protocol: Protocol;
  readonly principal: Principal;
  /** The inbound request, when the query came from a door. */
  readonly inbound: InboundRequest | undefined;
  /** Aborted when the client goes away or the runtime stops: the engine query is interrupted. */
  readonly signal: AbortSignal;
  /** Wall-clock start, for task history. */
  readonly startTime: Date;
  /** Filled by the engine's classification before `query.before`. */
  kind: StatementKind;
  /** The engine's statement type name (`SELECT`, `INSERT`, ...). */
  statementType: string;
  /** Datasets the statement reads or writes, lower-case, best effort. */
  datasets: string[];
  /** Scratch space for plugins, keyed by plugin name. */
  readonly state: Map<string, unknown>;
  /**
   * The engine's logical plan, as stable text (whitespace, keyword case and qualified names
   * do not change it): a cache key for semantically equal queries. Computed on first call
   * (about a millisecond); available until the query runs. Caches must key reads only
   * (`kind === 'read'`): writes have plans too.
   */
  logicalPlan: () => Promise<string>;
  /** Where the query's time went, by stage (query-stages.ts); the trace log's `query` line shows it. */
  readonly stages: StageClock;
}

/** A query's answer: an Arrow schema and a stream of record batches, never rows as objects. */
export interface QueryResult {
  readonly schema: Schema;
  readonly batches: AsyncIterable<RecordBatch>;
  cacheStatus: CacheStatus;
  /** Extra response headers (HTTP) or metadata (Flight) for this result, lower-case names. */
  readonly headers: Record<string, string>;
  /** Set when the same result is served again and again (a cache entry): doors may keep their encodings of it. */
  readonly memo?: ResultMemo;
}

/**
 * Encoded forms of a result that does not change while it is served (a results-cache
 * entry). A door encodes a small result once and sends the same bytes to every later
 * request; the memo's owner decides what it keeps and counts the bytes against its budget.
 */
export interface ResultMemo {
  /** Rows in the result. */
  readonly rows: number;
  /** A body kept earlier under a door-chosen name, e.g. `http:json`. */
  get(name: string): Uint8Array | undefined;
  /** Offers a body to keep; the owner may decline (too large, over budget). */
  set(name: string, body: Uint8Array): void;
}

/**
 * A cached answer already encoded for one door, found by `cache.peek`: the door sends
 * `body` as it is, and `take()` records it as served (hit counters). Found, then not taken
 * (`query.before` refused the query), it is not counted.
 */
export interface EncodedAnswer {
  readonly body: Uint8Array;
  readonly rows: number;
  readonly cacheStatus: CacheStatus;
  /** Response headers (HTTP) of the answer, lower-case names, as `QueryResult.headers`. */
  readonly headers: Readonly<Record<string, string>>;
  take(): void;
}

/** What `query.after` is told once a result has been fully sent, failed or was cancelled. */
export interface QueryOutcome {
  readonly status: 'ok' | 'error' | 'cancelled';
  readonly error: QuarryError | undefined;
  readonly cacheStatus: CacheStatus | undefined;
  readonly rows: number;
  /** From request start to the last batch sent. */
  readonly durationMs: number;
  /** Time the engine spent (0 when answered without the engine, e.g. a cache hit). */
  readonly executionMs: number;
  readonly endTime: Date;
}

/** A cache invalidation: every cached result that read one of these datasets must go. */
export interface CacheInvalidation {
  readonly datasets: readonly string[];
  readonly reason: 'refresh' | 'write' | 'manual';
}

/** A dataset (or a manifest view) whose name became queryable, as `datasets.registered` reports it. */
export interface DatasetRegisteredEvent {
  /** The dataset's (or view's) name as the manifest spells it. */
  readonly dataset: string;
  /** `view`: a manifest `views:` entry, created once what it reads is registered. */
  readonly kind: 'dataset' | 'view';
}

/** A dataset load or refresh attempt, as `datasets.loaded` reports it. */
export interface DatasetLoadEvent {
  readonly dataset: string;
  /** `load`: the first load at start-up; `refresh`: a reload of an accelerated dataset. */
  readonly kind: 'load' | 'refresh';
  readonly accelerated: boolean;
  readonly startTime: Date;
  readonly endTime: Date;
  readonly durationMs: number;
  /** Why it failed; undefined when it succeeded. */
  readonly error: string | undefined;
}
