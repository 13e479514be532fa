import { z } from 'zod';
import { requiredField } from '../messages.js';
import { DATASET_NAME_PATTERN } from './datasets.js';

/**
 * `views:` (Spice's shape): a name queries use and the SELECT it stands for, over datasets
 * and other views. Spice's accelerated views are accepted and served live over what they
 * read (a warning says so).
 */
export const viewSchema = z.strictObject({
  name: z
    .string({ error: requiredField('the SQL name of the view, e.g. orders_by_day') })
    .regex(DATASET_NAME_PATTERN, 'expected an identifier (letters, digits and _, optionally schema.view), e.g. orders_by_day'),
  sql: z
    .string({ error: requiredField('the SELECT the view stands for, e.g. SELECT status, count(*) FROM orders GROUP BY status') })
    .refine((sql) => sql.trim() !== '', 'expected one SELECT statement over datasets or other views'),
  description: z.string().optional(),
  /** Spice's accelerated views: kept so a Spice pod loads; the view is read live (warnings.ts). */
  acceleration: z.unknown().optional(),
  /** Spice's free-form metadata: kept, not used. */
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export type ViewConfig = Omit<z.output<typeof viewSchema>, 'acceleration' | 'metadata'>;

export const viewsSchema = z.array(viewSchema).default([]).describe('Views: each a name for a SELECT over datasets and other views, created once what it reads is registered.').meta({ uniqueItems: true });
