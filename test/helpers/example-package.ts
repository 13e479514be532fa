import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const EXAMPLE_PACKAGE = path.join(repositoryRoot, 'examples', 'plugins');

/**
 * The plugin examples are a package of their own that depends on Quarry as a user's would
 * (`"quarry": "file:../.."`, so `quarry` is the built `dist/` through the package's exports).
 * Installs it once (npm links the checkout; no network), whichever test file asks first.
 */
export async function ensureExamplePackage(): Promise<string> {
  if (!existsSync(path.join(repositoryRoot, 'dist', 'sdk', 'index.js'))) {
    throw new Error('dist/sdk/index.js is missing: the plugin examples import the built quarry; run `npm run build` (npm install does it)');
  }
  const linked = path.join(EXAMPLE_PACKAGE, 'node_modules', 'quarry', 'package.json');
  if (existsSync(linked)) return EXAMPLE_PACKAGE;
  // Two ava workers may ask at once: the first to make the lock folder installs, the other waits for the link.
  const lock = path.join(EXAMPLE_PACKAGE, '.installing');
  let owner = false;
  try {
    mkdirSync(lock);
    owner = true;
  } catch {
    // another worker installs
  }
  if (owner) {
    try {
      await run('npm', ['install', '--offline', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: EXAMPLE_PACKAGE });
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  } else {
    while (existsSync(lock)) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!existsSync(linked)) throw new Error(`npm install in ${EXAMPLE_PACKAGE} did not link quarry`);
  return EXAMPLE_PACKAGE;
}
