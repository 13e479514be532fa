import { warnNotYetEffective } from '../../core/plugins/pending.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { taskHistorySchema } from './schema.js';

export const TASK_HISTORY_PLUGIN_NAME = 'task-history';

/** The runtime.task_history table (placeholder until the task-history issue). */
export function createTaskHistoryPlugin(): QuarryPlugin {
  return {
    name: TASK_HISTORY_PLUGIN_NAME,
    manifest: [{ path: 'runtime.task_history', schema: taskHistorySchema }],
    apply(runtime) {
      warnNotYetEffective(runtime, 'runtime.task_history', 'task history');
    },
  };
}
