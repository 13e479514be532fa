import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DuckDBResult } from '@duckdb/node-api';
// Loads @duckdb/node-bindings, and so libduckdb, before the helper looks for it.
import '../duckdb-api.js';

/**
 * Whether a streamed DuckDB result ended or failed.
 *
 * `fetchChunk()` answers null both at the end of a streamed result and when the query failed
 * while streaming (the C API keeps the failure in the result; @duckdb/node-bindings does not
 * expose `duckdb_result_error`). Read past a null chunk without asking, a query that fails
 * at row 150,000 looks like a complete result of the rows before it. The helper built from
 * native/ at install reads the result's error from the loaded libduckdb.
 */
interface ResultStatusAddon {
  bind(libraryPath: string): void;
  failure(result: unknown): [message: string, errorType: number] | null;
}

const require = createRequire(import.meta.url);
const ADDON_FILE = path.join('native', 'build', 'Release', 'duckdb_result_status.node');

/** The engine's failure of a streamed result read to its null chunk: its message as DuckDB words it ("Invalid Input Error: boom"). */
export class StreamedResultFailure extends Error {
  readonly errorType: number;
  constructor(message: string, errorType: number) {
    super(message);
    this.name = 'StreamedResultFailure';
    this.errorType = errorType;
  }
}

let addon: ResultStatusAddon | undefined;

/** Loads the helper now (the engine calls it at start), so a missing build fails start-up rather than the first query. */
export function requireResultStatus(): void {
  addon ??= loadAddon();
}

/**
 * Throws the engine's error when `result` failed, returns when it ended. Call it only once a
 * `fetchChunk()` of the result answered null or an empty chunk, and no other fetch is running.
 */
export function throwIfResultFailed(result: DuckDBResult): void {
  const failure = (addon ??= loadAddon()).failure((result as unknown as { result: unknown }).result);
  if (failure !== null) throw new StreamedResultFailure(failure[0], failure[1]);
}

/** Loads the helper and binds it to the libduckdb of @duckdb/node-bindings; a missing helper is an error, never a silent fallback. */
function loadAddon(): ResultStatusAddon {
  const addonPath = findAddon();
  if (addonPath === undefined) {
    throw new Error(`${ADDON_FILE} is missing: build it with \`npm run build:native\` (npm install does); without it a query that fails while streaming would look complete`);
  }
  const loaded = require(addonPath) as ResultStatusAddon;
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
function findAddon(): string | undefined {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    const candidate = path.join(directory, ADDON_FILE);
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
