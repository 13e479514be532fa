import path from 'node:path';
import type { ZodType } from 'zod';
import { QuarryError } from '../errors/quarry-error.js';
import { resolvePlugins } from '../plugins/loader.js';
import type { BundledPlugin, QuarryPlugin } from '../plugins/types.js';
import type { PluginOrigin } from '../plugins/loader.js';
import { createSecretResolver, type SecretResolver } from '../secrets/resolver.js';
import { dedupeProblems, formatProblems, sortByDocumentOrder, manifestErrorMap, problemsFromIssues, type ManifestProblem } from './issues.js';
import { locateManifest, readManifestDocument } from './locate.js';
import { MASK, MIN_GUARDED_SECRET_LENGTH, maskManifest } from './mask.js';
import { hasPath, isMapping, parsePath } from './path.js';
import { recordRawDocument } from './presence.js';
import { datasetProblems } from './rules/datasets.js';
import { viewProblems } from './rules/views.js';
import { tlsProblems } from './rules/tls.js';
import { buildManifestSchema, collectSlices, type OwnedSlice } from './schema.js';
import { fieldPatterns, resolveSecretFields, unreplacedReferenceWarnings } from './secret-fields.js';
import { SPICE_ONLY_RUNTIME_KEYS, SPICE_ONLY_TOP_LEVEL_KEYS, pluginEntrySchema, secretStoreEntrySchema } from './sections/top-level.js';
import { applyRuntimeOverrides } from './set-runtime.js';
import { sliceExtras } from './slice.js';
import type { Manifest, ManifestSource, PluginEntry, SecretStoreEntry } from './types.js';
import { documentWarnings } from './warnings.js';
import { normaliseSpiceShapes } from './spice-shapes.js';

export interface LoadManifestOptions {
  /** A manifest file, or a directory holding quarry.yaml (else quarry.yml, spicepod.yaml, spicepod.yml). */
  path: string;
  /** The built-in plugins (usually defaultPlugins()); `plugins:` entries switch them off. */
  bundle: readonly BundledPlugin[];
  /** `--set-runtime path=value` flags, applied before validation. */
  setRuntime?: readonly string[];
  /** The environment secrets and `${ env:NAME }` read; default process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Where relative paths resolve, instead of the manifest's directory: a cluster executor loads
   * the app definition it fetched into a temporary file, but reads data where the scheduler does.
   */
  baseDirectory?: string;
  /**
   * `quarryd --check`: secrets no store holds are returned in `unresolvedSecrets` (their
   * references left in place) instead of stopping the load, so they come in one list with
   * every other problem.
   */
  collectUnresolvedSecrets?: boolean;
}

export interface LoadedManifest {
  /** Validated, defaulted, deprecations mapped, secrets replaced. */
  manifest: Manifest;
  source: ManifestSource;
  /** Plugins to apply, in order (dependencies first). */
  plugins: QuarryPlugin[];
  /** Built-ins switched off in `plugins:`. */
  disabledPlugins: string[];
  /** The plugins that run, in apply order, with where each comes from. */
  pluginOrigins: PluginOrigin[];
  /** Sections of disabled plugins present in the manifest: accepted, and ignored. */
  ignoredSections: Array<{ path: string; plugin: string }>;
  /** Start-up warnings, one line each; free of secret values. */
  warnings: string[];
  /** With `collectUnresolvedSecrets`: the references no store resolved, by manifest path. */
  unresolvedSecrets: ManifestProblem[];
  /** Every resolved secret value: whoever prints or logs manifest data masks these. */
  secretValues: ReadonlySet<string>;
  /** The manifest for `quarryd --check`: secrets and key material as `***`, durations and sizes as written. */
  masked: unknown;
}

/** Top-level sections that may be written empty (`runtime:` with everything commented out). */
const SECTIONS_EMPTY_MEANS_ABSENT = ['secrets', 'datasets', 'views', 'runtime', 'plugins', 'functions', 'tools'];
const ROOT_HINT = 'expected a mapping with keys such as version, kind, name, datasets and runtime';

/**
 * Reads a manifest: locate, parse YAML, apply --set-runtime, resolve plugins, validate
 * everything (core sections and every plugin's slices) collecting all problems, map
 * deprecated keys, replace secrets, and build the masked copy for --check.
 */
export async function loadManifest(options: LoadManifestOptions): Promise<LoadedManifest> {
  const env = options.env ?? process.env;
  const located = await locateManifest(options.path);
  const source = options.baseDirectory === undefined ? located : { ...located, directory: options.baseDirectory };
  const { document: parsed, warnings: yamlWarnings } = await readManifestDocument(source.file);
  const document = rootDocument(parsed, source.file);
  normaliseSpiceShapes(document);
  const problems: ManifestProblem[] = [];
  applyRuntimeOverrides(document, options.setRuntime ?? [], problems);

  const builtinNames = options.bundle.map((plugin) => plugin.name);
  const secretEntries = validEntries<SecretStoreEntry>(document.secrets, secretStoreEntrySchema).map(({ entry }) => entry);
  const secrets = lazyResolver(() => createSecretResolver({ entries: secretEntries, directory: source.directory, env }));
  const pluginEntries = await withResolvedParams(validEntries<PluginEntry>(document.plugins, pluginEntrySchema(builtinNames)), secrets);
  const { plugins, disabled, origins } = await resolvePlugins({ bundle: options.bundle, entries: pluginEntries, baseDirectory: source.directory });
  const slices = collectSlices(plugins, options.bundle.filter((plugin) => disabled.includes(plugin.name)));
  const schema = buildManifestSchema({ slices, builtinNames });

  // A copy: values zod passes through by reference must not carry resolved secrets back into the raw document.
  const result = schema.safeParse(structuredClone(document), { error: manifestErrorMap, reportInput: true });
  if (!result.success) problems.push(...problemsFromIssues(result.error.issues, document, schema));
  const ruleWarnings: string[] = [];
  problems.push(...tlsProblems(document, ruleWarnings), ...datasetProblems(document), ...viewProblems(document));
  if (problems.length > 0 || !result.success) {
    const unique = sortByDocumentOrder(dedupeProblems(problems), document);
    throw new QuarryError('MANIFEST_INVALID', formatProblems(source.file, unique), { details: { problems: unique } });
  }

  const manifest = finishManifest(result.data as Manifest, source);
  recordRawDocument(manifest, document);
  const warnings = [...yamlWarnings, ...documentWarnings(document, slices, plugins.map((plugin) => plugin.name)), ...ruleWarnings];
  runSliceResolvers(slices, manifest, document, warnings);

  const resolver = await secrets.get();
  const unresolvedSecrets: ManifestProblem[] = [];
  const secretDerived = await resolveSecretFields(manifest, fieldPatterns(slices, 'secretFields'), resolver, options.collectUnresolvedSecrets === true ? unresolvedSecrets : undefined);
  // A reference left unresolved for --check is a problem already, not a field that takes none.
  const unresolvedPaths = new Set(unresolvedSecrets.map((problem) => problem.path));
  warnings.push(...unreplacedReferenceWarnings(manifest, secretDerived).filter((warning) => !unresolvedPaths.has(warning.slice(0, warning.indexOf(': ')))));
  const masked = maskManifest(manifest, {
    schema,
    secretDerived,
    sensitivePatterns: fieldPatterns(slices, 'sensitiveFields'),
    secretValues: resolver.values,
  });
  return {
    manifest,
    source,
    plugins,
    disabledPlugins: disabled,
    pluginOrigins: origins,
    ignoredSections: slices.filter((owned) => !owned.enabled && hasPath(document, parsePath(owned.slice.path))).map((owned) => ({ path: owned.slice.path, plugin: owned.owner })),
    warnings: warnings.map((warning) => scrub(warning, resolver.values)),
    unresolvedSecrets,
    secretValues: resolver.values,
    masked,
  };
}

/** The parsed YAML must be a mapping; empty top-level sections count as absent. */
function rootDocument(parsed: unknown, file: string): Record<string, unknown> {
  if (!isMapping(parsed)) {
    const message = parsed === null || parsed === undefined ? `the file is empty; ${ROOT_HINT}` : `${ROOT_HINT}, got ${Array.isArray(parsed) ? 'a list' : JSON.stringify(parsed)}`;
    const problems = [{ path: '(root)', message }];
    throw new QuarryError('MANIFEST_INVALID', formatProblems(file, problems), { details: { problems } });
  }
  for (const key of SECTIONS_EMPTY_MEANS_ABSENT) if (parsed[key] === null) delete parsed[key];
  return parsed;
}

/**
 * The entries of a list that validate on their own. Plugins and secret stores are needed
 * before the whole manifest is validated (a user plugin brings its own schema); a broken
 * entry is skipped here and reported by the full validation.
 */
function validEntries<T>(list: unknown, entrySchema: ZodType): Array<{ index: number; entry: T }> {
  if (!Array.isArray(list)) return [];
  return list.flatMap((entry, index) => {
    const parsed = entrySchema.safeParse(entry);
    return parsed.success ? [{ index, entry: parsed.data as T }] : [];
  });
}

/** Creates the secret stores on first use, so a broken store never hides validation problems. */
function lazyResolver(create: () => Promise<SecretResolver>): { get(): Promise<SecretResolver> } {
  let pending: Promise<SecretResolver> | undefined;
  return { get: () => (pending ??= create()) };
}

/** A user plugin's factory receives its params with secrets already replaced. */
async function withResolvedParams(entries: Array<{ index: number; entry: PluginEntry }>, secrets: { get(): Promise<SecretResolver> }): Promise<PluginEntry[]> {
  const resolved: PluginEntry[] = [];
  for (const { index, entry } of entries) {
    if (entry.from === undefined || !entry.enabled) {
      resolved.push(entry);
      continue;
    }
    const params = structuredClone(entry.params);
    if (JSON.stringify(params).includes('${')) {
      // Shaped like the manifest so messages name `plugins[<index>].params.<key>`.
      const document = { plugins: Array.from({ length: index + 1 }, (_, at) => (at === index ? { params } : {})) };
      await resolveSecretFields(document, [['plugins', '*', 'params', '**']], await secrets.get());
    }
    resolved.push({ ...entry, params });
  }
  return resolved;
}

/** Fills the default name (kept in the manifest's usual key order) and drops ignored Spice sections. */
function finishManifest(validated: Manifest, source: ManifestSource): Manifest {
  const { version, kind, name, ...rest } = validated;
  const manifest: Manifest = { version, kind, name: name ?? path.basename(source.directory), ...rest };
  // Spice's view acceleration and metadata are warned about (warnings.ts), not served.
  manifest.views = manifest.views.map(({ name: viewName, sql, description }) => ({ name: viewName, sql, ...(description === undefined ? {} : { description }) }));
  const loose = manifest as unknown as Record<string, unknown>;
  for (const key of SPICE_ONLY_TOP_LEVEL_KEYS) delete loose[key];
  for (const key of SPICE_ONLY_RUNTIME_KEYS) delete manifest.runtime[key];
  return manifest;
}

function runSliceResolvers(slices: readonly OwnedSlice[], manifest: Manifest, document: Record<string, unknown>, warnings: string[]): void {
  const context = {
    manifest,
    isConfigured: (dotted: string) => hasPath(document, parsePath(dotted)),
    warn: (message: string) => warnings.push(message),
  };
  for (const owned of slices) {
    if (owned.enabled) sliceExtras(owned.slice).resolve?.(context);
  }
}

function scrub(text: string, secretValues: ReadonlySet<string>): string {
  let result = text;
  for (const secret of secretValues) if (secret.length >= MIN_GUARDED_SECRET_LENGTH) result = result.split(secret).join(MASK);
  return result;
}
