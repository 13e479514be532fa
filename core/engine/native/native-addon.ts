import { createRequire } from 'node:module';
import { loadNativeAddon } from '../../native-addons.js';
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
  const loaded = loadNativeAddon<Addon>(name, neededFor);
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
