import { closestMatch } from '../text/did-you-mean.js';
import { knownParams } from './sections/runtime-core.js';
import { SPICE_ONLY_RUNTIME_KEYS, SPICE_ONLY_TOP_LEVEL_KEYS } from './sections/top-level.js';
import type { OwnedSlice } from './schema.js';
import { hasPath, isMapping, parsePath } from './path.js';

/**
 * Start-up warnings the core derives from the raw document: Spice features Quarry does
 * not serve, `runtime.params` keys nothing reads, keys accepted before their behaviour
 * lands, and sections of plugins switched off.
 */
export function documentWarnings(document: Record<string, unknown>, slices: readonly OwnedSlice[], pluginNames: readonly string[] = []): string[] {
  return [...versionWarnings(document), ...accelerationEngineWarnings(document), ...columnWarnings(document), ...viewWarnings(document), ...spiceOnlyWarnings(document), ...paramsWarnings(document), ...absentPluginWarnings(document, pluginNames), ...disabledSectionWarnings(document, slices)];
}

/** The plugin that serves `runtime.params.geo` (the spatial ST_* functions); a deployment may leave it out. */
const GEO_PLUGIN = 'geo';
const SEARCH_PLUGIN = 'search';

/** An older Spice format loads; the author is told once what to write instead. */
function versionWarnings(document: Record<string, unknown>): string[] {
  if (document.version !== 'v1beta1') return [];
  return ['version: v1beta1 is an older Spice format; it is loaded as v1, whose fields it uses. Write `version: v1` (or `v2`) to silence this warning'];
}

/** Spice's sqlite and postgres acceleration engines are served by the embedded engine: said once per dataset, never silently. */
function accelerationEngineWarnings(document: Record<string, unknown>): string[] {
  if (!Array.isArray(document.datasets)) return [];
  return document.datasets.flatMap((dataset: unknown, index) => {
    if (!isMapping(dataset) || !isMapping(dataset.acceleration)) return [];
    const engine = dataset.acceleration.engine;
    if (engine !== 'sqlite' && engine !== 'postgres') return [];
    const name = typeof dataset.name === 'string' ? ` (${dataset.name})` : '';
    const mode = dataset.acceleration.mode === 'file' ? 'a DuckDB file under .quarry/acceleration/' : 'memory';
    return [`datasets[${index}]${name}.acceleration.engine: ${engine} is served by Quarry's embedded DuckDB engine, in ${mode}; no ${engine === 'sqlite' ? 'SQLite file' : 'PostgreSQL server'} is used`];
  });
}

/** Keys of `datasets[].columns[]` something acts on: the rest are kept and warned about. */
const SERVED_COLUMN_KEYS = new Set(['name', 'description', 'embeddings', 'full_text_search']);

/** Keys of `datasets[].columns[]` Quarry keeps without acting on them (Spice's type hints, metadata). */
function columnWarnings(document: Record<string, unknown>): string[] {
  if (!Array.isArray(document.datasets)) return [];
  return document.datasets.flatMap((dataset: unknown, index) => {
    if (!isMapping(dataset) || !Array.isArray(dataset.columns)) return [];
    return dataset.columns.flatMap((column: unknown, position) => {
      if (!isMapping(column)) return [];
      const ignored = Object.keys(column).filter((key) => !SERVED_COLUMN_KEYS.has(key));
      return ignored.length === 0 ? [] : [`datasets[${index}].columns[${position}] (${String(column.name)}): ${ignored.join(', ')} ${ignored.length > 1 ? 'are' : 'is'} accepted but not used`];
    });
  });
}

/** Spice's accelerated views: the view is served, live over what it reads (never silently). */
function viewWarnings(document: Record<string, unknown>): string[] {
  if (!Array.isArray(document.views)) return [];
  return document.views.flatMap((view: unknown, index) => {
    if (!isMapping(view) || view.acceleration === undefined) return [];
    const name = typeof view.name === 'string' ? ` (${view.name})` : '';
    return [`views[${index}]${name}.acceleration: views are not accelerated in Quarry; the view is served live over what it reads (accelerate the datasets it reads instead)`];
  });
}

function spiceOnlyWarnings(document: Record<string, unknown>): string[] {
  const warnings: string[] = [];
  const topLevel = SPICE_ONLY_TOP_LEVEL_KEYS.filter((key) => Object.hasOwn(document, key));
  if (topLevel.length > 0) {
    const plural = topLevel.length > 1;
    warnings.push(`${topLevel.join(', ')}: ${plural ? 'Spice features' : 'a Spice feature'} Quarry does not serve; ${plural ? 'these sections are' : 'this section is'} ignored`);
  }
  const runtime = isMapping(document.runtime) ? document.runtime : {};
  for (const key of SPICE_ONLY_RUNTIME_KEYS.filter((name) => Object.hasOwn(runtime, name))) {
    warnings.push(`runtime.${key}: a Spice feature Quarry does not serve; this section is ignored`);
  }
  return warnings;
}

const knownParamNames = Object.keys(knownParams);

function paramsWarnings(document: Record<string, unknown>): string[] {
  const runtime = isMapping(document.runtime) ? document.runtime : {};
  if (!isMapping(runtime.params)) return [];
  const warnings: string[] = [];
  for (const key of Object.keys(runtime.params)) {
    if (knownParamNames.includes(key)) continue;
    const suggestion = closestMatch(key, knownParamNames);
    warnings.push(`runtime.params.${key}: unknown parameter${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; it is kept but nothing reads it`);
  }
  return warnings;
}

function absentPluginWarnings(document: Record<string, unknown>, pluginNames: readonly string[]): string[] {
  const warnings: string[] = [];
  const runtime = isMapping(document.runtime) ? document.runtime : {};
  const params = isMapping(runtime.params) ? runtime.params : {};
  if (params.geo === 'enabled' && !pluginNames.includes(GEO_PLUGIN)) {
    warnings.push('runtime.params.geo is "enabled" but has no effect: the geo plugin (the spatial ST_* functions) is not part of this deployment');
  }
  if (!pluginNames.includes(SEARCH_PLUGIN)) {
    const searchable = (Array.isArray(document.datasets) ? document.datasets : []).filter((dataset: unknown) => isMapping(dataset) && (dataset.embeddings !== undefined || (Array.isArray(dataset.columns) && dataset.columns.some((column: unknown) => isMapping(column) && (column.embeddings !== undefined || column.full_text_search !== undefined)))));
    if (searchable.length > 0) warnings.push(`full_text_search and embeddings of ${searchable.map((dataset) => String((dataset as Record<string, unknown>).name)).join(', ')} have no effect: the search plugin is not part of this deployment`);
  }
  return warnings;
}

function disabledSectionWarnings(document: Record<string, unknown>, slices: readonly OwnedSlice[]): string[] {
  return slices
    .filter((owned) => !owned.enabled && hasPath(document, parsePath(owned.slice.path)))
    .map((owned) => `${owned.slice.path} is configured but has no effect: the plugin "${owned.owner}" is disabled in plugins:`);
}
