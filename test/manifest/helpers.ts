import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadManifest, type LoadedManifest } from '../../core/manifest/load.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';

/** Writes files (relative path -> content) into a fresh temp directory and returns it. */
export function writeFiles(files: Record<string, string>, name = 'quarry-manifest-'): string {
  const directory = temporaryDirectory(name);
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(directory, relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return directory;
}

/** Loads a manifest text with the default bundle and an empty environment unless given. */
export async function load(
  manifest: string,
  options: { files?: Record<string, string>; env?: NodeJS.ProcessEnv; setRuntime?: string[] } = {},
): Promise<LoadedManifest> {
  const directory = writeFiles({ 'quarry.yaml': manifest, ...options.files });
  return loadManifest({ path: directory, bundle: defaultPlugins(), env: options.env ?? {}, setRuntime: options.setRuntime });
}
