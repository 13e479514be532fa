import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// Loads @duckdb/node-bindings, and so libduckdb, before a helper looks for it.
import '../duckdb-api.js';

/** What every helper built from native/ offers: binding to the libduckdb the bindings loaded. */
export interface DuckDBHelperAddon {
  bind(libraryPath: string): void;
}

const require = createRequire(import.meta.url);

/**
 * Loads `native/build/Release/<name>.node` and binds it to the libduckdb of
 * @duckdb/node-bindings. A missing build is an error naming what it is needed for, never a
 * silent fallback.
 */
export function loadDuckDBHelper<Addon extends DuckDBHelperAddon>(name: string, neededFor: string): Addon {
  const file = path.join('native', 'build', 'Release', `${name}.node`);
  const addonPath = findAddon(file);
  if (addonPath === undefined) throw new Error(`${file} is missing: build it with \`npm run build:native\` (npm install does); ${neededFor}`);
  const loaded = require(addonPath) as Addon;
  const tried: string[] = [];
  for (const candidate of libduckdbCandidates()) {
    tried.push(candidate);
    try {
      loaded.bind(candidate);
      return loaded;
    } catch {
      // not this one: the next candidate
    }
  }
  throw new Error(`the loaded libduckdb was not found (tried ${tried.join(', ') || 'no path'})`);
}

/** The package root holding native/ (two folders up from core/engine/native/, three from dist/). */
function findAddon(file: string): string | undefined {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    const candidate = path.join(directory, file);
    if (existsSync(candidate)) return candidate;
    directory = path.dirname(directory);
  }
  return undefined;
}

/** Where @duckdb/node-bindings loads libduckdb from: its platform package, as its own loader picks it. */
function libduckdbCandidates(): string[] {
  const bindings = createRequire(require.resolve('@duckdb/node-bindings'));
  const packages = [`@duckdb/node-bindings-${process.platform}-${process.arch}`, `@duckdb/node-bindings-${process.platform}-${process.arch}-musl`];
  const files = ['libduckdb.so', 'libduckdb.dylib', 'duckdb.dll'];
  const found: string[] = [];
  for (const name of packages) {
    for (const file of files) {
      try {
        found.push(bindings.resolve(`${name}/${file}`));
      } catch {
        // not installed on this platform
      }
    }
  }
  return found;
}
