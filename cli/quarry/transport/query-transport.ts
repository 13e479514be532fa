import type { RecordBatch, Schema } from 'apache-arrow';

/**
 * How the client runs SQL, independent of the wire: Arrow Flight SQL for grpc(+tls)://
 * endpoints (the default), the HTTP API for http(s)://. The REPL and `sql -e` never learn
 * which protocol carried a query.
 */
export interface QueryTransport {
  /** Where the queries go, as shown to users (`http://127.0.0.1:8090`). */
  readonly endpoint: string;

  /**
   * Runs one statement and streams the result as Arrow record batches, so the client knows
   * each column's type and can stop keeping rows after the display limit.
   */
  queryArrow(sql: string, options: QueryOptions): Promise<ArrowQueryResult>;

  /**
   * Runs one statement and returns the result encoded as JSON rows or CSV, for
   * `--output json|csv`: by the runtime over HTTP, by the runtime's own encoders in the
   * client over Flight, so both give the same bytes.
   */
  queryText(sql: string, format: TextFormat, options: QueryOptions): Promise<TextQueryResult>;

  /** Releases connections so the process can exit. */
  close(): void;
}

export type TextFormat = 'json' | 'csv';

export interface QueryOptions {
  /** Aborting it cancels the query (Ctrl-C in the REPL); the promise or stream then rejects with CancelledError. */
  signal?: AbortSignal;
}

/** What the runtime's result cache did with a query (`x-cache`): HIT, MISS, STALE, BYPASS, or undefined. */
export type CacheStatus = string | undefined;

/**
 * `x-quarry-served-from: source`: the query read accelerated datasets whose first load was
 * still running, so the source answered; `x-quarry-loading` names them. Undefined otherwise.
 */
export type ServedFromSource = string[] | undefined;

export interface ArrowQueryResult {
  /** Undefined when the runtime sent no schema at all (a statement without a result). */
  schema: Schema | undefined;
  batches: AsyncIterable<RecordBatch>;
  cacheStatus: CacheStatus;
  servedFromSource: ServedFromSource;
}

export interface TextQueryResult {
  /** The encoded result, chunk by chunk as the batches arrive. */
  chunks: AsyncIterable<Uint8Array>;
  cacheStatus: CacheStatus;
  servedFromSource: ServedFromSource;
}

/** The datasets a response says are still loading, from its headers (HTTP) or metadata (Flight). */
export function servedFromSourceOf(header: (name: string) => string | undefined): ServedFromSource {
  if (header('x-quarry-served-from')?.toLowerCase() !== 'source') return undefined;
  return (header('x-quarry-loading') ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
}
