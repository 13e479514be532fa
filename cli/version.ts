import { createRequire } from 'node:module';

/** The package version, read once from package.json (two folders up from cli/ and dist/cli/). */
function readVersion(): string {
  const require = createRequire(import.meta.url);
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const manifest = require(candidate) as { name?: string; version?: string };
      if (manifest.name === 'quarry' && manifest.version) return manifest.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

export const QUARRY_VERSION = readVersion();
