import { stringify } from 'yaml';
import type { LoadedManifest } from '../../core/manifest/load.js';
import { isMapping, parsePath } from '../../core/manifest/path.js';

/**
 * What `quarryd --check` prints for a valid manifest: the datasets whose columns and SQL were
 * not checked (read over the network), the plugins that will load (in apply order, with where
 * each comes from), the sections written for disabled plugins (ignored:
 * left out of the manifest shown, so inline key material of a disabled auth plugin is never
 * echoed), then the manifest as the runtime reads it, secrets masked.
 */
export function checkReport(loaded: LoadedManifest, unchecked: readonly string[] = []): string {
  const lines = [`# ${loaded.source.file} is valid (sources are checked without the network: hosts, credentials and remote objects are not)`];
  if (unchecked.length > 0) lines.push(`# columns, refresh_sql and views not checked for datasets read over the network: ${unchecked.join(', ')}`);
  lines.push(`# plugins that will load, in order: ${loaded.pluginOrigins.map((origin) => `${origin.name} (${origin.source})`).join(', ') || 'none'}`);
  if (loaded.disabledPlugins.length > 0) lines.push(`# disabled (not loaded): ${loaded.disabledPlugins.join(', ')}`);
  for (const ignored of loaded.ignoredSections) lines.push(`# ignored: ${ignored.path} (the plugin "${ignored.plugin}" is disabled)`);
  return `${lines.join('\n')}\n${stringify(withoutPaths(loaded.masked, loaded.ignoredSections.map((ignored) => ignored.path)))}`;
}

function withoutPaths(document: unknown, paths: readonly string[]): unknown {
  const copy = structuredClone(document);
  for (const dotted of paths) {
    const segments = parsePath(dotted);
    let node: unknown = copy;
    for (const segment of segments.slice(0, -1)) node = isMapping(node) ? node[String(segment)] : undefined;
    if (isMapping(node)) delete node[String(segments.at(-1))];
  }
  return copy;
}
