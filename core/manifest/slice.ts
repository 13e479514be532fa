import type { ManifestSlice } from '../plugins/types.js';
import type { Manifest } from './types.js';

/** What a slice's `resolve` step may read and do once the whole manifest validated. */
export interface SliceResolveContext {
  /** The validated manifest; `resolve` may move values inside it (deprecated keys to new ones). */
  readonly manifest: Manifest;
  /** Whether a dotted path was written by the user (not filled by a default). */
  isConfigured(path: string): boolean;
  /** Adds a start-up warning (deprecations, ignored keys). */
  warn(message: string): void;
}

/**
 * Optional extras a plugin's manifest slice may carry beside `{ path, schema }`. They live
 * here, not in core/plugins/types.ts, because only the manifest loader reads them; a slice
 * without them behaves as a plain ManifestSlice.
 */
export interface ManifestSliceExtras {
  /**
   * Fields under the slice whose strings may hold `${ secrets:NAME }` references, as
   * patterns relative to the slice path: `keys.*` (every list entry), `params.*`, `**` (any depth).
   */
  readonly secretFields?: readonly string[];
  /** Fields shown as `***` by `quarryd --check` even when written inline (key material). */
  readonly sensitiveFields?: readonly string[];
  /** Runs after validation, before secrets are replaced: map deprecated keys, warn. */
  resolve?(context: SliceResolveContext): void;
}

export type ManifestSectionSlice = ManifestSlice & ManifestSliceExtras;

/** Reads a slice's extras; plain slices have none. */
export function sliceExtras(slice: ManifestSlice): ManifestSliceExtras {
  return slice as ManifestSectionSlice;
}
