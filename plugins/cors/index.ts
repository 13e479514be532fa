import { warnNotYetEffective } from '../../core/plugins/pending.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { corsSchema } from './schema.js';

export const CORS_PLUGIN_NAME = 'cors';

/** CORS headers on the HTTP listener (placeholder until the CORS issue). */
export function createCorsPlugin(): QuarryPlugin {
  return {
    name: CORS_PLUGIN_NAME,
    manifest: [{ path: 'runtime.cors', schema: corsSchema }],
    apply(runtime) {
      warnNotYetEffective(runtime, 'runtime.cors', 'CORS');
    },
  };
}
