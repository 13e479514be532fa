import { z } from 'zod';
import { durationSchema } from '../../core/units.js';
import { durationAtLeast } from '../../core/manifest/fields.js';

const MINUTE = 60_000;
const retention = () => durationAtLeast(MINUTE, '60s', 'to turn task history off set enabled: false');

/** `runtime.task_history`: the runtime.task_history table (spec, runtime.task_history). */
export const taskHistorySchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Task history on or off (default true).'),
    captured_output: z.enum(['none', 'truncated']).default('none').describe('Output stored per task: none (default) or truncated.'),
    captured_context: z
      .enum(['truncated', 'redacted', 'full'])
      .default('truncated')
      .describe('How much AI/search input and output is stored: truncated (default), redacted, full. Case-sensitive.'),
    captured_plan: z.enum(['none', 'explain', 'explain analyze']).default('none').describe('Query plans captured after completion: none (default), explain, explain analyze.'),
    min_sql_duration: durationSchema().optional().describe('Capture plans only for queries slower than this.'),
    min_plan_duration: durationSchema().optional().describe('Keep a plan only when the EXPLAIN itself took longer than this.'),
    retention_period: retention().default(8 * 60 * MINUTE).describe('How long records are kept (default 8h; at least 60s).'),
    retention_check_interval: retention().default(15 * MINUTE).describe('How often old records are removed (default 15m; at least 60s).'),
  })
  .prefault({})
  .describe('The runtime.task_history table.');

export type TaskHistoryConfig = z.output<typeof taskHistorySchema>;
