import { z, type ZodType } from 'zod';
import { QuarryError } from '../errors/quarry-error.js';
import { isLazyPlugin, type BundledPlugin, type ManifestSlice, type QuarryPlugin } from '../plugins/types.js';
import { datasetSchema } from './sections/datasets.js';
import { coreRuntimeShape } from './sections/runtime-core.js';
import { viewsSchema } from './sections/views.js';
import {
  SPICE_ONLY_RUNTIME_KEYS,
  SPICE_ONLY_TOP_LEVEL_KEYS,
  ignoredSectionSchema,
  kindSchema,
  nameSchema,
  pluginsSchema,
  secretsSchema,
  versionSchema,
} from './sections/top-level.js';

/** A manifest slice with the plugin that owns it and whether that plugin runs. */
export interface OwnedSlice {
  readonly slice: ManifestSlice;
  readonly owner: string;
  readonly enabled: boolean;
}

/** Top-level keys the core owns; plugins may own `functions`, `tools` and new keys. */
const CORE_TOP_LEVEL_KEYS = ['version', 'kind', 'name', 'secrets', 'datasets', 'views', 'runtime', 'plugins'];
/** Top-level lists every manifest has; when no plugin owns them they hold anything. */
const OPTIONAL_TOP_LEVEL_LISTS = ['functions', 'tools'];

/** Where a slice goes: a top-level key, or a key of `runtime`. */
export function slicePlacement(path: string): { scope: 'top' | 'runtime'; key: string } | undefined {
  const parts = path.split('.');
  if (parts.length === 1 && parts[0]) return { scope: 'top', key: parts[0] };
  if (parts.length === 2 && parts[0] === 'runtime' && parts[1]) return { scope: 'runtime', key: parts[1] };
  return undefined;
}

/** The section of a disabled built-in that is never imported: accepted as written, reported as ignored. */
const IGNORED_SECTION = z.unknown().optional();

/** A bundled plugin's slices; a lazy built-in's (never loaded when disabled) accept anything. */
function slicesOf(plugin: BundledPlugin): readonly ManifestSlice[] {
  if (!isLazyPlugin(plugin)) return plugin.manifest ?? [];
  return plugin.sections.map((path) => ({ path, schema: IGNORED_SECTION }));
}

/**
 * The slices of running plugins and of disabled built-ins. A disabled built-in's sections
 * are accepted and reported as ignored; one given as a loaded plugin (tests, embedders)
 * still validates them. A running plugin's slice replaces a disabled built-in's slice of
 * the same path: that is how a user's cache plugin takes over `runtime.caching`.
 */
export function collectSlices(running: readonly QuarryPlugin[], disabledBuiltins: readonly BundledPlugin[]): OwnedSlice[] {
  const byPath = new Map<string, OwnedSlice>();
  const coreRuntimeKeys = Object.keys(coreRuntimeShape);
  for (const [plugins, enabled] of [[running, true], [disabledBuiltins, false]] as const) {
    for (const plugin of plugins) {
      for (const slice of slicesOf(plugin)) {
        const placement = slicePlacement(slice.path);
        if (!placement) {
          throw new QuarryError('PLUGIN_LOAD_FAILED', `plugin "${plugin.name}" declares manifest section "${slice.path}": a section must be a top-level key or runtime.<key>`);
        }
        const coreKeys = placement.scope === 'top' ? CORE_TOP_LEVEL_KEYS : coreRuntimeKeys;
        if (coreKeys.includes(placement.key)) {
          throw new QuarryError('PLUGIN_DUPLICATE', `plugin "${plugin.name}" declares manifest section "${slice.path}", which the core owns`);
        }
        const existing = byPath.get(slice.path);
        if (existing) {
          if (!enabled) continue;
          throw new QuarryError('PLUGIN_DUPLICATE', `plugins "${existing.owner}" and "${plugin.name}" both declare manifest section "${slice.path}"; disable one of them in plugins:`);
        }
        byPath.set(slice.path, { slice, owner: plugin.name, enabled });
      }
    }
  }
  return [...byPath.values()];
}

/**
 * The whole manifest schema: core sections plus every slice. Objects are strict, so an
 * unknown key anywhere is an error (with did-you-mean from the issue formatter); Spice
 * sections Quarry does not serve are accepted and warned about by the loader.
 */
export function buildManifestSchema(options: { slices: readonly OwnedSlice[]; builtinNames: readonly string[] }): ZodType {
  const runtimeShape: Record<string, ZodType> = { ...coreRuntimeShape };
  const topShape: Record<string, ZodType> = {
    version: versionSchema,
    kind: kindSchema,
    name: nameSchema,
    secrets: secretsSchema,
    // uniqueItems: two equal entries are always a duplicate name (JSON Schema cannot say "unique by name"; --check does).
    datasets: z.array(datasetSchema).default([]).describe('Datasets: each a source (from) loaded as a SQL table (name).').meta({ uniqueItems: true }),
    views: viewsSchema,
    plugins: pluginsSchema(options.builtinNames),
  };
  for (const { slice } of options.slices) {
    const placement = slicePlacement(slice.path)!;
    (placement.scope === 'top' ? topShape : runtimeShape)[placement.key] = slice.schema;
  }
  for (const key of OPTIONAL_TOP_LEVEL_LISTS) {
    topShape[key] ??= z.array(z.unknown()).default([]);
  }
  for (const key of SPICE_ONLY_RUNTIME_KEYS) runtimeShape[key] = ignoredSectionSchema;
  for (const key of SPICE_ONLY_TOP_LEVEL_KEYS) topShape[key] = ignoredSectionSchema;
  topShape.runtime = z.strictObject(runtimeShape).prefault({}).describe('Runtime settings: listeners, engine, auth, caching, telemetry, ...');
  return z.strictObject(topShape);
}
