/**
 * The playground's built front end (dist/playground/, made by scripts/build-playground.mjs),
 * read once at start-up and kept in memory with a gzipped copy of each file: the page is small
 * and served often, and reading it per request would put disk I/O in front of every load.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export interface Asset {
  readonly contentType: string;
  readonly body: Buffer;
  readonly gzipped: Buffer;
}

export interface PlaygroundAssets {
  /** Changes with every build: the page asks for `app.js?v=<version>`, so browsers may cache assets for good. */
  readonly version: string;
  /** The page with `{{nonce}}` and `{{version}}` still in it. */
  readonly pageTemplate: string;
  readonly files: ReadonlyMap<string, Asset>;
}

const SERVED = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' } as const;

/** The package's root: the nearest folder up from this module holding Quarry's package.json (source and dist/ alike). */
function packageRoot(): string {
  let folder = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'quarry') return folder;
    const parent = path.dirname(folder);
    if (parent === folder) throw new Error(`no package.json of quarry above ${fileURLToPath(import.meta.url)}`);
    folder = parent;
  }
}

export const assetsFolder = (): string => path.join(packageRoot(), 'dist', 'playground');

/** The built files, or why they cannot be served (the folder or a file is missing). */
export function loadAssets(folder: string = assetsFolder()): PlaygroundAssets | { missing: string } {
  const needed = ['build.json', 'index.html', ...Object.keys(SERVED)];
  const absent = needed.filter((file) => !existsSync(path.join(folder, file)));
  if (absent.length > 0) return { missing: `${absent.join(', ')} not found in ${folder}` };
  const files = new Map<string, Asset>();
  for (const [file, contentType] of Object.entries(SERVED)) {
    const body = readFileSync(path.join(folder, file));
    files.set(file, { contentType, body, gzipped: gzipSync(body, { level: 9 }) });
  }
  const build = JSON.parse(readFileSync(path.join(folder, 'build.json'), 'utf8')) as { version: string };
  return { version: build.version, pageTemplate: readFileSync(path.join(folder, 'index.html'), 'utf8'), files };
}
