import test from 'ava';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadManifest } from '../../core/manifest/load.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';

/**
 * Every folder of test/fixtures/bad-manifests is one broken manifest and the exact error
 * it must produce (see the README there). UPDATE_BAD_MANIFESTS=1 rewrites expected.txt
 * from the current output: read the diff before committing it, the message is the product.
 */
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'bad-manifests');
const cases = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

test('there are at least 45 bad-manifest cases', (t) => {
  t.true(cases.length >= 45, `only ${cases.length} cases`);
});

function readOptional(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

/** Absolute paths vary by checkout: the message is compared with them written as placeholders. */
function withPlaceholders(message: string, directory: string): string {
  const manifestFile = ['quarry.yaml', 'quarry.yml', 'spicepod.yaml', 'spicepod.yml'].map((name) => path.join(directory, name)).find((file) => existsSync(file));
  let text = message;
  if (manifestFile) text = text.split(manifestFile).join('<manifest>');
  return text.split(directory).join('<dir>');
}

for (const name of cases) {
  test(`bad manifest: ${name}`, async (t) => {
    const directory = path.join(root, name);
    const setRuntime = (readOptional(path.join(directory, 'set-runtime.txt')) ?? '').split('\n').filter((line) => line.trim() !== '');
    const env = JSON.parse(readOptional(path.join(directory, 'env.json')) ?? '{}') as NodeJS.ProcessEnv;
    const error = await t.throwsAsync(loadManifest({ path: directory, bundle: defaultPlugins(), setRuntime, env }));
    t.true(error instanceof QuarryError, `expected a QuarryError, got ${String(error)}`);
    const actual = `${(error as QuarryError).code}\n${withPlaceholders(error!.message, directory)}\n`;
    const expectedFile = path.join(directory, 'expected.txt');
    if (process.env.UPDATE_BAD_MANIFESTS === '1') writeFileSync(expectedFile, actual);
    t.is(actual, readFileSync(expectedFile, 'utf8'));
  });
}
