import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import { warnNotYetEffective } from '../../core/plugins/pending.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { migrateCodehostParam } from './deprecation.js';
import { sourceRateControlSchema } from './schema.js';

export const SOURCE_RATE_CONTROL_PLUGIN_NAME = 'source-rate-control';

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.source_rate_control', schema: sourceRateControlSchema, secretFields: ['params.*'], resolve: migrateCodehostParam },
];

/** Rate limits on requests to upstream sources (placeholder until the rate-control issue). */
export function createSourceRateControlPlugin(): QuarryPlugin {
  return {
    name: SOURCE_RATE_CONTROL_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      warnNotYetEffective(runtime, 'runtime.source_rate_control', 'source rate control');
    },
  };
}
