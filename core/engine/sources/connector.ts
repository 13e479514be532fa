import type { RecordBatch, Schema } from 'apache-arrow';
import type { LoadProgressSink } from '../load-progress.js';
import type { Logger } from '../../log.js';

/**
 * The connector seam: a plugin serves one or more `from:` schemes (`s3`, `postgres`,
 * `https`, ...) by resolving each dataset that names one to a `DatasetSource`. The core
 * serves `file:` through the same seam (sources/file-connector.ts).
 *
 * DuckDB here has no extensions beyond parquet/json/icu (no httpfs, no postgres or sqlite
 * scanner: they cannot be downloaded), so a source is one of two kinds:
 *  - `engine`: DuckDB reads it itself with a table expression over local files or an
 *    attached read-only database (a connector may first mirror remote objects locally);
 *  - `fetch`: the connector reads the data itself and hands the engine Arrow batches.
 */
export interface DatasetConnector {
  /** The `from:` schemes it serves, without the colon: `s3`, `postgres`, `https`. */
  readonly schemes: readonly string[];
  /**
   * Resolves one dataset. Validate `params` here and throw a QuarryError naming the dataset
   * and the key; do no network I/O (sources connect lazily, when loaded or queried).
   */
  resolve(dataset: ConnectorDataset): DatasetSource | Promise<DatasetSource>;
}

/** One manifest dataset as a connector sees it. */
export interface ConnectorDataset {
  /** The dataset's SQL name as the manifest spells it. */
  readonly name: string;
  /** The whole `from:` value, e.g. `postgres:public.orders`. */
  readonly from: string;
  /** The scheme before the first colon, lower case: `postgres`. */
  readonly scheme: string;
  /** `from` after `scheme:`, e.g. `public.orders` or `//bucket/prefix/`. */
  readonly location: string;
  /** The dataset's `params`, secrets already resolved, every value a string. */
  readonly params: Readonly<Record<string, string>>;
  /** The manifest's directory: relative paths in params resolve against it. */
  readonly baseDirectory: string;
  readonly log: Logger;
}

export type DatasetSource = EngineSource | FetchSource;

/** DuckDB reads the data itself. */
export interface EngineSource {
  readonly kind: 'engine';
  /** The SQL table expression that reads it, e.g. `read_parquet('/abs/orders.parquet')`. */
  readonly tableExpression: string;
  /** Paths and directories the engine must still be allowed to read after lockdown. */
  readonly allowedPaths: readonly string[];
  readonly allowedDirectories: readonly string[];
  /** Statements run once on the engine's admin connection before lockdown (e.g. `ATTACH ... (READ_ONLY)`). */
  readonly setupStatements?: readonly string[];
  /**
   * Brings a local mirror up to date (e.g. objects downloaded from a bucket) before each load
   * or refresh and, for a dataset read live, before the queries that read it. A load passes
   * `progress`: report what was downloaded (bytes) and the total where known.
   */
  synchronise?(signal: AbortSignal, progress?: LoadProgressSink): Promise<void>;
  close?(): Promise<void>;
}

/** The connector reads rows itself and hands the engine Arrow record batches. */
export interface FetchSource {
  readonly kind: 'fetch';
  /**
   * The dataset's columns (a live dataset's view is typed by them). Asked at start-up; when it
   * has not answered within a short grace the runtime listens anyway and registers the dataset
   * when it does. One attempt may take 60 s (`signal` says when to give up, and is aborted at
   * shutdown); a failed attempt is made again with backoff.
   */
  schema(signal: AbortSignal): Promise<Schema>;
  /**
   * Optional: true when `schema()` reads only local files (a SQLite database), never the
   * network: `quarryd --check` then asks it and binds the SQL that reads the dataset.
   */
  readonly offlineSchema?: boolean;
  /**
   * Optional: while `schema()` has not answered, what it waits for, in a few words (e.g. "no
   * live executor has joined the cluster yet"). Shown in the dataset's status and in the error
   * of a query naming the dataset meanwhile.
   */
  schemaWait?(): string | undefined;
  /**
   * Reads the source. `request` narrows what is read; a source applies what it can (the
   * engine re-applies every filter, so applying none is correct, only slower). Every batch
   * has the columns asked for (all of `schema()` when `columns` is undefined), in that order.
   * An upstream failure must throw: an error never becomes an empty result.
   */
  scan(request: ScanRequest): AsyncIterable<RecordBatch>;
  /**
   * Optional: about how many rows a whole scan reads (e.g. PostgreSQL's statistics), for a
   * load's progress. Undefined when the source does not know; it never fails a load.
   */
  estimateRows?(signal: AbortSignal): Promise<number | undefined>;
  /**
   * Optional: codes of the source's own errors (QuarryErrors it throws from `scan`, their
   * messages naming the dataset) that reach the client as they are — e.g. a cluster's
   * CLUSTER_PARTITION_UNAVAILABLE (503), the answer its pushed-down queries give too. Any other
   * failure of a live read is DATASET_SOURCE_FAILED (502), naming the dataset and the cause.
   */
  readonly passThroughCodes?: ReadonlySet<string>;
  close?(): Promise<void>;
}

export interface ScanRequest {
  readonly signal: AbortSignal;
  /** Columns wanted, by name; all when undefined. */
  readonly columns?: readonly string[];
  /** Predicates that all hold for every wanted row (a conjunction). */
  readonly filters?: readonly ScanFilter[];
  /** At most this many rows are wanted (only set when no filter is left to the engine). */
  readonly limit?: number;
}

/** One simple predicate on a column, as pushed down from a query or an append refresh. */
export type ScanFilter =
  | { readonly column: string; readonly operator: '=' | '<>' | '<' | '<=' | '>' | '>='; readonly value: ScanValue }
  | { readonly column: string; readonly operator: 'IN'; readonly values: readonly ScanValue[] }
  | { readonly column: string; readonly operator: 'IS NULL' | 'IS NOT NULL' };

export type ScanValue = string | number | bigint | boolean | Date;
