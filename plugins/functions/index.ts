import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import { warnNotYetEffective } from '../../core/plugins/pending.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { functionsSchema, runtimeFunctionsSchema, toolsSchema } from './schema.js';

export const FUNCTIONS_PLUGIN_NAME = 'functions';

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.functions', schema: runtimeFunctionsSchema },
  { path: 'functions', schema: functionsSchema, secretFields: ['*.params.**'] },
  { path: 'tools', schema: toolsSchema, secretFields: ['*.params.**'] },
];

/** User-defined SQL functions and SQL-callable tools (placeholder until the functions issue). */
export function createFunctionsPlugin(): QuarryPlugin {
  return {
    name: FUNCTIONS_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      for (const path of ['runtime.functions', 'functions', 'tools']) warnNotYetEffective(runtime, path, 'user-defined functions');
    },
  };
}
