import { z } from 'zod';
import { closestMatch } from '../../text/did-you-mean.js';
import { requiredField } from '../messages.js';

/**
 * `version`: v2 is the current manifest format; v1 pods load as they are, and so do
 * v1beta1 pods (Spice's older format, in most published pods and tutorials) with a warning.
 */
export const versionSchema = z.enum(['v1beta1', 'v1', 'v2']).default('v2').describe('Manifest format version: v1beta1 (older Spice pods, loaded as v1 with a warning), v1 or v2 (default v2).');

/** `kind`: Spice pods say `Spicepod`; Quarry's own manifests may say `Quarry`. */
export const kindSchema = z.enum(['Spicepod', 'Quarry']).default('Spicepod').describe('Spicepod (default) or Quarry.');

/** `name`: defaults to the manifest directory's name (filled in by the loader). */
export const nameSchema = z.string().min(1).optional().describe("The app's name; default: the manifest directory's name.");

const stringMap = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));

/** A `secrets:` entry: an extra secret store, e.g. `{ from: file, name: k8s, params: { directory: /run/secrets } }`. */
export const secretStoreEntrySchema = z
  .strictObject({
    from: z.string({ error: requiredField('the secret store kind, e.g. env or file') }).min(1).describe('Store kind: env, file, or a kind a plugin registers.'),
    name: z.string().min(1).optional().describe('Name used in ${ <name>:KEY }; default: the store kind.'),
    params: stringMap.default({}).describe('Store options: file_path (env), directory (file).'),
  })
  .transform((entry) => ({ from: entry.from, name: entry.name ?? entry.from.split(':')[0]!, params: entry.params }));

export const secretsSchema = z
  .array(secretStoreEntrySchema)
  .default([])
  .superRefine((entries, context) => {
    const seen = new Map<string, number>();
    entries.forEach((entry, index) => {
      const first = seen.get(entry.name);
      if (first !== undefined) {
        context.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate secret store name "${entry.name}" (also secrets[${first}]); give each store its own name` });
      } else seen.set(entry.name, index);
    });
  })
  .describe('Secret stores; default: the env store (process environment, .env.local, .env).')
  .meta({ uniqueItems: true });

/**
 * A `plugins:` entry. `{ name, enabled }` switches a built-in plugin on or off;
 * `{ from, enabled?, params? }` loads a user plugin from a file path (relative to the
 * manifest) or an installed package, and passes `params` to its factory.
 */
export function pluginEntrySchema(builtinNames: readonly string[]) {
  return z
    .strictObject({
      name: z.string().min(1).optional().describe('A built-in plugin to switch on or off.').meta({ enum: [...builtinNames] }),
      from: z.string().min(1).optional().describe('A user plugin: a file path relative to the manifest, or a package name.'),
      enabled: z.boolean().default(true).describe('Default true.'),
      params: z.record(z.string(), z.unknown()).default({}).describe("Passed to a user plugin's factory."),
    })
    // Exactly one of name and from, said for the JSON Schema too (the refinement below says it for --check).
    .meta({ oneOf: [{ required: ['name'] }, { required: ['from'] }] })
    .superRefine((entry, context) => {
      if ((entry.name === undefined) === (entry.from === undefined)) {
        context.addIssue({ code: 'custom', path: [], message: 'a plugin entry needs exactly one of name (a built-in plugin) or from (a user plugin path or package)' });
        return;
      }
      if (entry.name !== undefined && Object.keys(entry.params).length > 0) {
        context.addIssue({ code: 'custom', path: ['params'], message: 'params apply to user plugins (from:) only; built-in plugins read their own manifest sections' });
      }
      if (entry.name !== undefined && !builtinNames.includes(entry.name)) {
        const suggestion = closestMatch(entry.name, builtinNames);
        context.addIssue({
          code: 'custom',
          path: ['name'],
          message: `no built-in plugin named "${entry.name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; built-in plugins are: ${builtinNames.join(', ')}`,
        });
      }
    });
}

export function pluginsSchema(builtinNames: readonly string[]) {
  return z.array(pluginEntrySchema(builtinNames)).default([]).describe('Switch built-in plugins off, or load user plugins.');
}

/**
 * Top-level keys of Spice pods for features Quarry does not serve: accepted so a Spice pod
 * loads, ignored with a warning that names them.
 */
export const SPICE_ONLY_TOP_LEVEL_KEYS = ['models', 'catalogs', 'workers', 'metadata', 'dependencies', 'snapshots', 'evals'] as const;

/** Runtime keys of Spice pods Quarry does not serve (zipkin tracing): ignored with a warning. */
export const SPICE_ONLY_RUNTIME_KEYS = ['tracing'] as const;

export const ignoredSectionSchema = z.unknown().optional().describe('A Spice feature Quarry does not serve: ignored with a warning.');
