import { hasPath, parsePath } from './path.js';

/**
 * What the user actually wrote, as opposed to what defaults filled in. Plugins ask
 * "was `runtime.caching` configured?" to decide whether a warning is due; the validated
 * manifest cannot answer that because every section is defaulted. The raw document is
 * kept beside the manifest object (keyed by identity) rather than inside it, so the
 * manifest's shape stays exactly what the schema says.
 */
const rawDocuments = new WeakMap<object, unknown>();

/** Remembers the raw document (after --set-runtime overrides) a manifest was built from. */
export function recordRawDocument(manifest: { runtime: object }, raw: unknown): void {
  rawDocuments.set(manifest, raw);
  // Also by the runtime object: a `config` hook tap that returns `{ ...manifest }` keeps it.
  rawDocuments.set(manifest.runtime, raw);
}

/**
 * True when `path` (dotted, e.g. `runtime.caching` or `datasets[0].access`) was written in
 * the manifest or set by --set-runtime. For a manifest not built by loadManifest (a test's
 * hand-made object), falls back to whether the path exists in the object itself.
 */
export function isConfigured(manifest: { runtime?: unknown }, path: string): boolean {
  const runtime = manifest.runtime;
  const byRuntime = typeof runtime === 'object' && runtime !== null ? rawDocuments.get(runtime) : undefined;
  const raw = rawDocuments.get(manifest) ?? byRuntime ?? manifest;
  return hasPath(raw, parsePath(path));
}
