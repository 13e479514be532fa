import type { DatasetConfig } from './sections/datasets.js';
import type { ViewConfig } from './sections/views.js';
import type { CoreRuntimeConfig } from './sections/runtime-core.js';

export type { DatasetConfig, AccelerationConfig } from './sections/datasets.js';
export type { ViewConfig } from './sections/views.js';
export type { CoreRuntimeConfig, TlsConfig } from './sections/runtime-core.js';

/** A `plugins:` entry: switch a built-in off, or load a user plugin from a path or package. */
export interface PluginEntry {
  /** A built-in plugin's name (with `enabled: false` to turn it off). */
  name?: string | undefined;
  /** A user plugin: a file path (relative to the manifest) or a package name. */
  from?: string | undefined;
  enabled: boolean;
  /** Passed to a user plugin's factory. */
  params: Record<string, unknown>;
}

/** A `secrets:` entry: an extra secret store. */
export interface SecretStoreEntry {
  from: string;
  name: string;
  params: Record<string, string>;
}

/**
 * The validated, defaulted, secret-resolved manifest. After start-up it is frozen.
 * Plugin-owned sections of `runtime` are typed by each plugin's own schema; read them
 * through `runtime.section(path)`.
 */
export interface Manifest {
  version: string;
  kind: string;
  name: string;
  secrets: SecretStoreEntry[];
  datasets: DatasetConfig[];
  /** `views:`, in manifest order. */
  views: ViewConfig[];
  runtime: CoreRuntimeConfig & Record<string, unknown>;
  functions: unknown[];
  tools: unknown[];
  plugins: PluginEntry[];
}

/** Where the manifest came from: relative paths in it resolve against `directory`. */
export interface ManifestSource {
  /** The manifest file, absolute. */
  file: string;
  /** Its directory, absolute. */
  directory: string;
}
