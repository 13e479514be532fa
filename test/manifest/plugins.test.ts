import test from 'ava';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { loadManifest } from '../../core/manifest/load.js';
import type { LazyPlugin, QuarryPlugin } from '../../core/plugins/types.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { received } from './fixtures/greeter-plugin.js';
import { load, writeFiles } from './helpers.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const greeter = path.join(fixtures, 'greeter-plugin.ts');

test('{ name, enabled: false } switches a built-in off', async (t) => {
  const { plugins, disabledPlugins } = await load('plugins:\n  - name: cors\n    enabled: false\n  - name: mcp\n');
  t.deepEqual(disabledPlugins, ['cors']);
  t.false(plugins.some((plugin) => plugin.name === 'cors'));
  t.true(plugins.some((plugin) => plugin.name === 'mcp'));
});

test('a disabled built-in is never imported; its section is accepted as written and reported as ignored', async (t) => {
  let imports = 0;
  const heavy: LazyPlugin = {
    name: 'heavy',
    sections: ['runtime.heavy'],
    load: async () => {
      imports += 1;
      return { name: 'heavy', manifest: [{ path: 'runtime.heavy', schema: z.strictObject({ enabled: z.boolean() }) }], apply() {} };
    },
  };
  const directory = writeFiles({ 'quarry.yaml': 'plugins:\n  - name: heavy\n    enabled: false\n  - name: cors\n    enabled: false\nruntime:\n  heavy:\n    enabled: "no"\n  cors:\n    enabled: "no"\n' });
  const loaded = await loadManifest({ path: directory, bundle: [...defaultPlugins(), heavy], env: {} });
  t.is(imports, 0, 'the disabled plugin module was not imported');
  t.deepEqual(loaded.disabledPlugins, ['heavy', 'cors']);
  t.deepEqual(loaded.ignoredSections, [{ path: 'runtime.cors', plugin: 'cors' }, { path: 'runtime.heavy', plugin: 'heavy' }]);
  t.true(loaded.warnings.includes('runtime.heavy is configured but has no effect: the plugin "heavy" is disabled in plugins:'));
  t.false(loaded.pluginOrigins.some((origin) => origin.name === 'heavy' || origin.name === 'cors'));
  t.deepEqual(loaded.pluginOrigins.find((origin) => origin.name === 'mcp'), { name: 'mcp', source: 'built-in' });

  const enabled = await loadManifest({ path: writeFiles({ 'quarry.yaml': 'runtime:\n  heavy:\n    enabled: "no"\n' }), bundle: [heavy], env: {} }).catch((error: unknown) => error);
  t.is(imports, 1, 'an enabled lazy built-in is imported');
  t.is((enabled as QuarryError).code, 'MANIFEST_INVALID', 'and its section validates');
});

test('a user plugin gets its params with secrets replaced, and its section is validated and defaulted', async (t) => {
  const { plugins, manifest, masked } = await load(
    `plugins:\n  - from: ${greeter}\n    params:\n      name: hello-plugin\n      api: "\${ secrets:greeter_key }"\nruntime:\n  greeter:\n    token: "\${ env:GREETER_TOKEN }"\n`,
    { env: { GREETER_KEY: 'k-123456', GREETER_TOKEN: 't-654321' } },
  );
  t.true(plugins.some((plugin) => plugin.name === 'hello-plugin'));
  t.deepEqual(received.at(-1), { name: 'hello-plugin', api: 'k-123456' });
  t.deepEqual(manifest.runtime.greeter, { greeting: 'hello', token: 't-654321' });
  t.deepEqual(manifest.plugins[0]!.params, { name: 'hello-plugin', api: 'k-123456' });
  const text = JSON.stringify(masked);
  t.false(text.includes('k-123456'));
  t.false(text.includes('t-654321'));
});

test("a user plugin's section rejects unknown keys like the core's", async (t) => {
  const error = await t.throwsAsync(load(`plugins:\n  - from: ${greeter}\nruntime:\n  greeter:\n    greting: hi\n`));
  t.is((error as QuarryError).code, 'MANIFEST_INVALID');
  t.regex(error!.message, /runtime\.greeter\.greting: unknown key \(did you mean "greeting"\?\)$/);
});

test('a user plugin may own the section of a disabled built-in', async (t) => {
  const plugin = path.join(fixtures, 'custom-cache-plugin.ts');
  const { manifest, warnings } = await load(`plugins:\n  - name: results-cache\n    enabled: false\n  - from: ${plugin}\nruntime:\n  caching:\n    redis_url: redis://cache:6379\n`);
  t.deepEqual(manifest.runtime.caching, { redis_url: 'redis://cache:6379' });
  t.deepEqual(warnings, []);
});

test('two running plugins declaring one section fail at load', async (t) => {
  const twin: QuarryPlugin = { name: 'twin-cors', manifest: [{ path: 'runtime.cors', schema: z.unknown() }], apply() {} };
  const directory = writeFiles({ 'quarry.yaml': 'name: app\n' });
  const error = await t.throwsAsync(loadManifest({ path: directory, bundle: [...defaultPlugins(), twin], env: {} }));
  t.is((error as QuarryError).code, 'PLUGIN_DUPLICATE');
  t.is(error!.message, 'plugins "cors" and "twin-cors" both declare manifest section "runtime.cors"; disable one of them in plugins:');
});

test('a plugin may not declare a core section or a nested path', async (t) => {
  const directory = writeFiles({ 'quarry.yaml': 'name: app\n' });
  const coreOwner: QuarryPlugin = { name: 'bad', manifest: [{ path: 'runtime.tls', schema: z.unknown() }], apply() {} };
  const nested: QuarryPlugin = { name: 'deep', manifest: [{ path: 'runtime.a.b', schema: z.unknown() }], apply() {} };
  const first = await t.throwsAsync(loadManifest({ path: directory, bundle: [coreOwner], env: {} }));
  t.is(first!.message, 'plugin "bad" declares manifest section "runtime.tls", which the core owns');
  const second = await t.throwsAsync(loadManifest({ path: directory, bundle: [nested], env: {} }));
  t.is(second!.message, 'plugin "deep" declares manifest section "runtime.a.b": a section must be a top-level key or runtime.<key>');
});

test('with an empty bundle, plugin sections are unknown keys and functions/tools still default', async (t) => {
  const directory = writeFiles({ 'quarry.yaml': 'runtime:\n  cors: {}\n' });
  const error = await t.throwsAsync(loadManifest({ path: directory, bundle: [], env: {} }));
  t.regex(error!.message, /runtime\.cors: unknown key/);
  const plain = writeFiles({ 'quarry.yaml': 'name: app\n' });
  const { manifest } = await loadManifest({ path: plain, bundle: [], env: {} });
  t.deepEqual(manifest.functions, []);
  t.deepEqual(manifest.tools, []);
});
