/**
 * A small object store for shared state (rate-control leases, later cluster state): whole
 * objects by key, with conditional writes so replicas can compare-and-swap. `version` is
 * opaque (an ETag on S3, a sequence number on file://).
 */
export interface ObjectStore {
  /** The URI it was opened from, for messages. */
  readonly location: string;
  get(key: string): Promise<StoredObject | undefined>;
  /** Writes unconditionally; returns the new version. */
  put(key: string, body: Buffer): Promise<string>;
  /** Writes only when the key does not exist; undefined when it already did (a lost race). */
  putIfAbsent(key: string, body: Buffer): Promise<string | undefined>;
  /** Writes only when the key is still at `version`; undefined when it changed (a lost race). */
  putIfMatch(key: string, body: Buffer, version: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
  close?(): Promise<void>;
}

export interface StoredObject {
  readonly body: Buffer;
  readonly version: string;
}
