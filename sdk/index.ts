/**
 * `quarry`: the runtime for embedding and testing (`createRuntime`), and the values a plugin
 * uses (errors, stages, the API version). Types are in `quarry/plugin` and re-exported here.
 */
import { createLogger, type OutputLevel } from '../core/log.js';
import { loadManifest } from '../core/manifest/load.js';
import { PLUGIN_API_VERSION } from '../core/plugins/api-version.js';
import type { QuarryPlugin } from '../core/plugins/types.js';
import { Runtime } from '../core/runtime.js';
import { defaultPlugins } from '../plugins/default-bundle.js';

export type * from './plugin.js';
export { QuarryError, isQuarryError, refuse, QUARRY_ERROR_BRAND } from '../core/errors/quarry-error.js';
export { defineErrorCodes, GRPC } from '../core/errors/codes.js';
export { STAGE } from '../core/hooks/stages.js';
export { ANONYMOUS } from '../core/pipeline/types.js';
export { parseDuration, parseSize } from '../core/units.js';
/** The zod the runtime validates manifests with: build your section's schema with it, so it composes with the runtime's. */
export { z } from 'zod';
export { PLUGIN_API_VERSION };

/** A plugin, stamped with the plugin API version it was written for; gives `apply` its types. */
export function definePlugin<Plugin extends QuarryPlugin>(plugin: Plugin): Plugin & { readonly pluginApiVersion: typeof PLUGIN_API_VERSION } {
  return { ...plugin, pluginApiVersion: PLUGIN_API_VERSION };
}

export interface CreateRuntimeOptions {
  /** A manifest file, or a directory holding quarry.yaml (or spicepod.yaml). */
  manifest: string;
  /**
   * Plugins applied after the built-ins, as if listed in the manifest's `plugins:` (the way a
   * test adds the plugin it tests). `{ name, enabled: false }` in the manifest switches one off.
   */
  plugins?: readonly QuarryPlugin[];
  /** HTTP listen address; default 127.0.0.1:8090, port 0 picks a free port. */
  http?: string;
  /** Flight SQL listen address; default 127.0.0.1:50051; false serves no Flight. */
  flight?: string | false;
  /** Metrics listen address; off unless given. */
  metrics?: string;
  /** `path=value` overrides of `runtime:`, as `quarryd --set-runtime`. */
  setRuntime?: readonly string[];
  /** The environment `${ env:NAME }` and the env secret store read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Log detail on stderr; default the manifest's `runtime.output_level`. */
  outputLevel?: OutputLevel;
}

/** A runtime made in-process: start it, query its endpoints, stop it. */
export interface QuarryRuntime {
  /** Binds the listeners (datasets may still be loading: `whenLoaded()` waits for them). */
  start(): Promise<void>;
  /** Resolves once every dataset's first load finished (loaded or failed). */
  whenLoaded(): Promise<void>;
  /** Drains, then stops listeners, plugins and the engine. */
  stop(): Promise<void>;
  /** `host:port` of the HTTP and Flight listeners once started ('' for one not serving). */
  endpoints(): { http: string; flight: string };
  /** Start-up warnings from the manifest (deprecations, ignored sections). */
  readonly warnings: readonly string[];
  /** The plugins that run, in apply order. */
  readonly plugins: readonly string[];
}

/** Loads a manifest and builds the runtime `quarryd` would run, plus `options.plugins`. */
export async function createRuntime(options: CreateRuntimeOptions): Promise<QuarryRuntime> {
  const log = createLogger({ level: options.outputLevel ?? 'info' });
  const loaded = await loadManifest({
    path: options.manifest,
    bundle: [...defaultPlugins(), ...(options.plugins ?? [])],
    setRuntime: options.setRuntime,
    env: options.env,
  });
  if (!options.outputLevel) log.setOutputLevel(loaded.manifest.runtime.output_level);
  for (const warning of loaded.warnings) log.warn(warning);
  const runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log, http: options.http, flight: options.flight, metrics: options.metrics });
  return {
    start: () => runtime.start(),
    whenLoaded: () => runtime.whenLoaded(),
    stop: () => runtime.stop(),
    endpoints: () => ({ http: runtime.httpEndpoint, flight: runtime.flightEndpoint }),
    warnings: loaded.warnings,
    plugins: loaded.plugins.map((plugin) => plugin.name),
  };
}
