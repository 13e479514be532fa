import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { resolvePlugins } from '../../core/plugins/loader.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { isQuarryError } from '../../core/errors/quarry-error.js';

const plugin = (name: string, dependencies?: string[]): QuarryPlugin => ({ name, dependencies, apply: () => undefined });
const bundle = [plugin('alpha'), plugin('beta', ['alpha']), plugin('gamma')];

function directoryWith(files: Record<string, string>): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-plugins-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(directory, name)), { recursive: true });
    writeFileSync(path.join(directory, name), text);
  }
  return directory;
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isQuarryError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

test('the default bundle loads in dependency order', async (t) => {
  const { plugins } = await resolvePlugins({ bundle, entries: [], baseDirectory: os.tmpdir() });
  t.deepEqual(plugins.map((p) => p.name), ['alpha', 'beta', 'gamma']);
});

test('a built-in can be disabled by name', async (t) => {
  const { plugins, disabled } = await resolvePlugins({ bundle, entries: [{ name: 'gamma', enabled: false, params: {} }], baseDirectory: os.tmpdir() });
  t.deepEqual(plugins.map((p) => p.name), ['alpha', 'beta']);
  t.deepEqual(disabled, ['gamma']);
});

test('disabling a plugin another depends on fails naming both', async (t) => {
  const error = await failure(resolvePlugins({ bundle, entries: [{ name: 'alpha', enabled: false, params: {} }], baseDirectory: os.tmpdir() }));
  t.is(error.code, 'PLUGIN_DEPENDENCY_MISSING');
  t.is(error.message, 'plugin "beta" depends on "alpha", which is disabled in the manifest');
});

test('an unknown built-in name is refused with a suggestion', async (t) => {
  const error = await failure(resolvePlugins({ bundle, entries: [{ name: 'gama', enabled: false, params: {} }], baseDirectory: os.tmpdir() }));
  t.is(error.code, 'PLUGIN_UNKNOWN');
  t.is(error.message, 'plugins[0].name: no built-in plugin named "gama" (did you mean "gamma"?); built-in plugins are: alpha, beta, gamma');
});

test('a user plugin loads from a path relative to the manifest, with its params', async (t) => {
  const directory = directoryWith({
    'plugins/audit.mjs': `export default (params) => ({ name: 'audit-' + params.suffix, dependencies: ['alpha'], apply() {} });`,
  });
  const { plugins } = await resolvePlugins({ bundle, entries: [{ from: './plugins/audit.mjs', enabled: true, params: { suffix: 'x' } }], baseDirectory: directory });
  t.deepEqual(plugins.map((p) => p.name), ['alpha', 'beta', 'gamma', 'audit-x']);
});

test('a user plugin loads from a package name resolved beside the manifest', async (t) => {
  const directory = directoryWith({
    'node_modules/quarry-plugin-hello/package.json': JSON.stringify({ name: 'quarry-plugin-hello', type: 'module', main: 'index.js' }),
    'node_modules/quarry-plugin-hello/index.js': `export const plugin = { name: 'hello', apply() {} };`,
  });
  const { plugins } = await resolvePlugins({ bundle: [], entries: [{ from: 'quarry-plugin-hello', enabled: true, params: {} }], baseDirectory: directory });
  t.deepEqual(plugins.map((p) => p.name), ['hello']);
});

test('a user plugin with a built-in name is a duplicate', async (t) => {
  const directory = directoryWith({ 'dup.mjs': `export default { name: 'gamma', apply() {} };` });
  const error = await failure(resolvePlugins({ bundle, entries: [{ from: './dup.mjs', enabled: true, params: {} }], baseDirectory: directory }));
  t.is(error.code, 'PLUGIN_DUPLICATE');
  t.is(error.message, 'two plugins are named "gamma": plugin names must be unique (rename the user plugin, or disable the built-in with { name: gamma, enabled: false })');
});

test('a user plugin depending on a plugin that is not loaded fails at start-up', async (t) => {
  const directory = directoryWith({ 'needy.mjs': `export default { name: 'needy', dependencies: ['redis-cache'], apply() {} };` });
  const error = await failure(resolvePlugins({ bundle, entries: [{ from: './needy.mjs', enabled: true, params: {} }], baseDirectory: directory }));
  t.is(error.code, 'PLUGIN_DEPENDENCY_MISSING');
  t.is(error.message, 'plugin "needy" depends on "redis-cache", which is not loaded');
});

test('a missing file, a module that throws and a bad export are coded errors', async (t) => {
  const directory = directoryWith({
    'throws.mjs': `throw new Error('cannot initialise');`,
    'bad.mjs': `export default { apply() {} };`,
    'factory-throws.mjs': `export default () => { throw new Error('no params'); };`,
  });
  const missing = await failure(resolvePlugins({ bundle: [], entries: [{ from: './nope.mjs', enabled: true, params: {} }], baseDirectory: directory }));
  t.is(missing.code, 'PLUGIN_LOAD_FAILED');
  t.regex(missing.message, /^plugins\[0\]\.from: importing "\.\/nope\.mjs" failed: Cannot find module/);
  const throws = await failure(resolvePlugins({ bundle: [], entries: [{ from: './throws.mjs', enabled: true, params: {} }], baseDirectory: directory }));
  t.is(throws.message, 'plugins[0].from: importing "./throws.mjs" failed: cannot initialise');
  const bad = await failure(resolvePlugins({ bundle: [], entries: [{ from: './bad.mjs', enabled: true, params: {} }], baseDirectory: directory }));
  t.is(bad.code, 'PLUGIN_LOAD_FAILED');
  t.is(bad.message, 'plugins[0].from: "./bad.mjs" must default-export a plugin { name, apply(runtime) } or a function returning one');
  const factory = await failure(resolvePlugins({ bundle: [], entries: [{ from: './factory-throws.mjs', enabled: true, params: {} }], baseDirectory: directory }));
  t.is(factory.code, 'PLUGIN_FAILED');
  t.is(factory.message, 'plugins[0].from: the plugin factory of "./factory-throws.mjs" threw: no params');
});

test('a dependency cycle is refused', async (t) => {
  const error = await failure(resolvePlugins({ bundle: [plugin('a', ['b']), plugin('b', ['a'])], entries: [], baseDirectory: os.tmpdir() }));
  t.is(error.code, 'PLUGIN_DEPENDENCY_MISSING');
  t.is(error.message, 'plugin dependency cycle: a -> b -> a');
});
