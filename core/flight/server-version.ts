import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

function readPackageVersion(candidates: readonly string[], name: string): string {
  for (const candidate of candidates) {
    try {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === name && manifest.version) return manifest.version;
    } catch {
      // try the next location
    }
  }
  return '0.0.0';
}

const here = path.dirname(new URL(import.meta.url).pathname);

/** Quarry's version from package.json (two folders up from core/flight/, three from dist/core/flight/). */
export const QUARRY_VERSION = readPackageVersion([path.resolve(here, '../../package.json'), path.resolve(here, '../../../package.json')], 'quarry');

/** The apache-arrow library version, reported as the server's Arrow version. */
export const ARROW_VERSION = (() => {
  try {
    return readPackageVersion([path.join(path.dirname(require.resolve('apache-arrow')), 'package.json')], 'apache-arrow');
  } catch {
    return '0.0.0';
  }
})();
