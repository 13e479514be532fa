import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { QuarryError } from '../errors/quarry-error.js';
import { closestMatch } from '../text/did-you-mean.js';
import type { PluginEntry } from '../manifest/types.js';
import type { PluginModuleExport, QuarryPlugin } from './types.js';

/**
 * Turns the default bundle and the manifest's `plugins:` entries into the ordered list of
 * plugins to apply: built-ins switched off are dropped, user plugins are imported, and
 * names and dependencies are checked before anything runs.
 */
export async function resolvePlugins(options: {
  bundle: readonly QuarryPlugin[];
  entries: readonly PluginEntry[];
  baseDirectory: string;
}): Promise<{ plugins: QuarryPlugin[]; disabled: string[] }> {
  const builtinNames = options.bundle.map((plugin) => plugin.name);
  const disabled = new Set<string>();
  const loaded: QuarryPlugin[] = [];

  for (const [index, entry] of options.entries.entries()) {
    if (entry.from !== undefined) {
      if (!entry.enabled) continue;
      loaded.push(await importPlugin(entry, index, options.baseDirectory));
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

  const plugins = [...options.bundle.filter((plugin) => !disabled.has(plugin.name)), ...loaded];
  checkNames(plugins);
  return { plugins: orderByDependencies(plugins, disabled), disabled: [...disabled] };
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
    module = (await import(url)) as typeof module;
  } catch (error) {
    throw new QuarryError('PLUGIN_LOAD_FAILED', `${where}: importing "${specifier}" failed: ${(error as Error).message}`, { cause: error });
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
  return plugin;
}

function isPlugin(value: unknown): value is QuarryPlugin {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<QuarryPlugin>;
  return typeof candidate.name === 'string' && candidate.name.length > 0 && typeof candidate.apply === 'function';
}
