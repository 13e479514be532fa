import { createRequire } from 'node:module';
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { QuarryError } from '../errors/quarry-error.js';
import { PLUGIN_API_VERSION } from './api-version.js';
import { closestMatch } from '../text/did-you-mean.js';
import type { PluginEntry } from '../manifest/types.js';
import { isLazyPlugin, type BundledPlugin, type PluginModuleExport, type QuarryPlugin } from './types.js';

/** Where a plugin that will run comes from, for `quarryd --check` and the start-up log. */
export interface PluginOrigin {
  readonly name: string;
  /** `built-in`, or the manifest's `from:` as written. */
  readonly source: string;
}

/**
 * Turns the default bundle and the manifest's `plugins:` entries into the ordered list of
 * plugins to apply: built-ins switched off are dropped (and a lazy built-in is never
 * imported), user plugins are imported, and names and dependencies are checked before
 * anything runs.
 */
export async function resolvePlugins(options: {
  bundle: readonly BundledPlugin[];
  entries: readonly PluginEntry[];
  baseDirectory: string;
}): Promise<{ plugins: QuarryPlugin[]; disabled: string[]; origins: PluginOrigin[] }> {
  const builtinNames = options.bundle.map((plugin) => plugin.name);
  const disabled = new Set<string>();
  const loaded: QuarryPlugin[] = [];
  const origins = new Map<QuarryPlugin, string>();

  for (const [index, entry] of options.entries.entries()) {
    if (entry.from !== undefined) {
      if (!entry.enabled) continue;
      const plugin = await importPlugin(entry, index, options.baseDirectory);
      origins.set(plugin, entry.from);
      loaded.push(plugin);
      continue;
    }
    const name = entry.name!;
    if (!builtinNames.includes(name)) {
      const suggestion = closestMatch(name, builtinNames);
      throw new QuarryError(
        'PLUGIN_UNKNOWN',
        `plugins[${index}].name: no built-in plugin named "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; built-in plugins are: ${builtinNames.join(', ')}`,
      );
    }
    if (!entry.enabled) disabled.add(name);
  }

  const builtins = await Promise.all(options.bundle.filter((plugin) => !disabled.has(plugin.name)).map(loadBuiltin));
  const plugins = [...builtins, ...loaded];
  checkNames(plugins);
  const ordered = orderByDependencies(plugins, disabled);
  return {
    plugins: ordered,
    disabled: [...disabled],
    origins: ordered.map((plugin) => ({ name: plugin.name, source: origins.get(plugin) ?? 'built-in' })),
  };
}

async function loadBuiltin(bundled: BundledPlugin): Promise<QuarryPlugin> {
  if (!isLazyPlugin(bundled)) return bundled;
  let plugin: QuarryPlugin;
  try {
    plugin = await bundled.load();
  } catch (error) {
    throw new QuarryError('PLUGIN_LOAD_FAILED', `built-in plugin "${bundled.name}" could not be loaded: ${(error as Error).message}`, { cause: error });
  }
  if (plugin.name !== bundled.name) {
    throw new QuarryError('PLUGIN_LOAD_FAILED', `built-in plugin "${bundled.name}" loaded as "${plugin.name}"`);
  }
  return plugin;
}

function checkNames(plugins: readonly QuarryPlugin[]): void {
  const seen = new Set<string>();
  for (const plugin of plugins) {
    if (seen.has(plugin.name)) {
      throw new QuarryError('PLUGIN_DUPLICATE', `two plugins are named "${plugin.name}": plugin names must be unique (rename the user plugin, or disable the built-in with { name: ${plugin.name}, enabled: false })`);
    }
    seen.add(plugin.name);
  }
}

/** Dependencies first, otherwise the given order (stable), so apply order is predictable. */
function orderByDependencies(plugins: readonly QuarryPlugin[], disabled: ReadonlySet<string>): QuarryPlugin[] {
  const byName = new Map(plugins.map((plugin) => [plugin.name, plugin]));
  const ordered: QuarryPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (plugin: QuarryPlugin, chain: string[]) => {
    if (state.get(plugin.name) === 'done') return;
    if (state.get(plugin.name) === 'visiting') {
      throw new QuarryError('PLUGIN_DEPENDENCY_MISSING', `plugin dependency cycle: ${[...chain, plugin.name].join(' -> ')}`);
    }
    state.set(plugin.name, 'visiting');
    for (const dependency of plugin.dependencies ?? []) {
      const target = byName.get(dependency);
      if (!target) {
        const why = disabled.has(dependency) ? 'which is disabled in the manifest' : 'which is not loaded';
        throw new QuarryError('PLUGIN_DEPENDENCY_MISSING', `plugin "${plugin.name}" depends on "${dependency}", ${why}`);
      }
      visit(target, [...chain, plugin.name]);
    }
    state.set(plugin.name, 'done');
    ordered.push(plugin);
  };
  for (const plugin of plugins) visit(plugin, []);
  return ordered;
}

function looksLikePath(specifier: string): boolean {
  return specifier.startsWith('.') || specifier.startsWith('/') || /\.(c|m)?(j|t)s$/.test(specifier);
}

async function importPlugin(entry: PluginEntry, index: number, baseDirectory: string): Promise<QuarryPlugin> {
  const specifier = entry.from!;
  const where = `plugins[${index}].from`;
  let url: string;
  try {
    url = looksLikePath(specifier)
      ? pathToFileURL(path.resolve(baseDirectory, specifier)).href
      : pathToFileURL(createRequire(path.join(baseDirectory, 'package.json')).resolve(specifier)).href;
  } catch (error) {
    throw new QuarryError('PLUGIN_LOAD_FAILED', `${where}: cannot find plugin "${specifier}" (a file path relative to the manifest, or an installed package name): ${(error as Error).message}`);
  }
  let module: { default?: PluginModuleExport; plugin?: PluginModuleExport };
  try {
    module = (await (isTypeScript(url) ? importTypeScript(url) : import(url))) as typeof module;
  } catch (error) {
    throw new QuarryError('PLUGIN_LOAD_FAILED', `${where}: importing "${specifier}" failed: ${(error as Error).message}${commonJsHint(url)}`, { cause: error });
  }
  const exported = module.default ?? module.plugin;
  let plugin: unknown;
  try {
    plugin = typeof exported === 'function' ? await exported(entry.params) : exported;
  } catch (error) {
    throw new QuarryError('PLUGIN_FAILED', `${where}: the plugin factory of "${specifier}" threw: ${(error as Error).message}`, { cause: error });
  }
  if (!isPlugin(plugin)) {
    throw new QuarryError('PLUGIN_LOAD_FAILED', `${where}: "${specifier}" must default-export a plugin { name, apply(runtime) } or a function returning one`);
  }
  if (plugin.pluginApiVersion !== undefined && plugin.pluginApiVersion !== PLUGIN_API_VERSION) {
    throw new QuarryError(
      'PLUGIN_API_MISMATCH',
      `${where}: plugin "${plugin.name}" (${specifier}) was written for plugin API ${String(plugin.pluginApiVersion)}; this runtime serves plugin API ${PLUGIN_API_VERSION}: build the plugin against the installed quarry (its quarry/plugin types)`,
    );
  }
  return plugin;
}

function isTypeScript(url: string): boolean {
  return /\.(c|m)?ts$/.test(new URL(url).pathname);
}

/**
 * A `.ts` file outside an ES-module package is CommonJS to Node and tsx, and an `export
 * default` plugin then fails to load with a message about require(): say what to change.
 */
function commonJsHint(url: string): string {
  const file = fileURLToPath(url);
  if (!/\.ts$/.test(file)) return '';
  for (let directory = path.dirname(file); ; directory = path.dirname(directory)) {
    const manifest = path.join(directory, 'package.json');
    if (existsSync(manifest)) {
      const type = (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: unknown }).type;
      return type === 'module' ? '' : ` (a .ts plugin is loaded as an ES module only inside a package whose package.json says "type": "module" — ${manifest} does not; add it, or name the file .mts)`;
    }
    if (path.dirname(directory) === directory) return ' (a .ts plugin is loaded as an ES module only inside a package whose package.json says "type": "module", and none encloses it: add one beside the plugin, or name the file .mts)';
  }
}

let typeScriptLoader: Promise<void> | undefined;

/**
 * A `.ts` plugin in the shipped (compiled) runtime: tsx's loader, registered for the process
 * on first use, strips the types with esbuild; type-checking stays the author's build step.
 * Not tsx's scoped `tsImport`: it loads the plugin's imports as separate module instances, so
 * a plugin's apache-arrow batches were not the runtime's (`instanceof` failed). A runtime
 * without TypeScript plugins never loads tsx (see docs/plugins/writing-plugins.md for the cost).
 */
async function importTypeScript(url: string): Promise<unknown> {
  typeScriptLoader ??= import('tsx/esm/api').then(({ register }) => {
    register();
  });
  await typeScriptLoader;
  return import(url);
}

function isPlugin(value: unknown): value is QuarryPlugin {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<QuarryPlugin>;
  return typeof candidate.name === 'string' && candidate.name.length > 0 && typeof candidate.apply === 'function';
}
