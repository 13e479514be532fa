import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import { warnNotYetEffective } from '../../core/plugins/pending.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { schedulerSchema } from './schema.js';

export const SCHEDULER_PLUGIN_NAME = 'scheduler';

const slices: ManifestSectionSlice[] = [{ path: 'runtime.scheduler', schema: schedulerSchema, secretFields: ['params.*'] }];

/** The cluster scheduler role (placeholder until the cluster issue). */
export function createSchedulerPlugin(): QuarryPlugin {
  return {
    name: SCHEDULER_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      warnNotYetEffective(runtime, 'runtime.scheduler', 'cluster scheduling');
    },
  };
}
