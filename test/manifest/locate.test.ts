import test from 'ava';
import path from 'node:path';
import { loadManifest } from '../../core/manifest/load.js';
import { locateManifest, MANIFEST_FILE_NAMES } from '../../core/manifest/locate.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { writeFiles } from './helpers.js';

test('a directory is searched in order: quarry.yaml, quarry.yml, spicepod.yaml, spicepod.yml', async (t) => {
  t.deepEqual([...MANIFEST_FILE_NAMES], ['quarry.yaml', 'quarry.yml', 'spicepod.yaml', 'spicepod.yml']);
  const all = Object.fromEntries(MANIFEST_FILE_NAMES.map((name) => [name, `name: from-${name}\n`]));
  for (const [index, expected] of MANIFEST_FILE_NAMES.entries()) {
    const files = Object.fromEntries(Object.entries(all).slice(index));
    const directory = writeFiles(files);
    const source = await locateManifest(directory);
    t.is(source.file, path.join(directory, expected));
    t.is(source.directory, directory);
    const { manifest } = await loadManifest({ path: directory, bundle: defaultPlugins(), env: {} });
    t.is(manifest.name, `from-${expected}`);
  }
});

test('a Spice pod directory (spicepod.yaml only) loads', async (t) => {
  const directory = writeFiles({ 'spicepod.yaml': 'version: v1\nkind: Spicepod\nname: pod\n' });
  const { manifest, source } = await loadManifest({ path: directory, bundle: defaultPlugins(), env: {} });
  t.is(manifest.name, 'pod');
  t.is(path.basename(source.file), 'spicepod.yaml');
});

test('a manifest file path is used as given, whatever its name', async (t) => {
  const directory = writeFiles({ 'staging.yaml': 'name: staging\n', 'quarry.yaml': 'name: default\n' });
  const { manifest, source } = await loadManifest({ path: path.join(directory, 'staging.yaml'), bundle: defaultPlugins(), env: {} });
  t.is(manifest.name, 'staging');
  t.is(source.directory, directory);
});

test('a path that does not exist is MANIFEST_NOT_FOUND', async (t) => {
  const missing = path.join(writeFiles({}), 'nope.yaml');
  const error = await t.throwsAsync(locateManifest(missing), { instanceOf: QuarryError });
  t.is((error as QuarryError).code, 'MANIFEST_NOT_FOUND');
  t.is(error!.message, `manifest path ${missing} does not exist: pass a manifest file, or a directory holding quarry.yaml, quarry.yml, spicepod.yaml, spicepod.yml`);
});

test('a relative path resolves against the working directory', async (t) => {
  const directory = writeFiles({ 'quarry.yaml': 'name: rel\n' });
  const relative = path.relative(process.cwd(), directory);
  const source = await locateManifest(relative);
  t.is(source.file, path.join(directory, 'quarry.yaml'));
});
