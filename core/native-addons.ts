import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** Loads `native/build/Release/<name>.node`; a missing build is an error naming what it is needed for. */
export function loadNativeAddon<Addon>(name: string, neededFor: string): Addon {
  const file = path.join('native', 'build', 'Release', `${name}.node`);
  const addonPath = findAddon(file);
  if (addonPath === undefined) throw new Error(`${file} is missing: build it with \`npm run build:native\` (npm install does); ${neededFor}`);
  return require(addonPath) as Addon;
}

/** The package root holding native/ (one folder up from core/, two from dist/core/). */
function findAddon(file: string): string | undefined {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth += 1) {
    const candidate = path.join(directory, file);
    if (existsSync(candidate)) return candidate;
    directory = path.dirname(directory);
  }
  return undefined;
}

