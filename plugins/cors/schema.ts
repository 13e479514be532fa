import { z } from 'zod';

/** `runtime.cors`: CORS for the HTTP endpoint. */
export const corsSchema = z
  .strictObject({
    enabled: z.boolean().default(false).describe('CORS headers on HTTP responses (default false).'),
    allowed_origins: z.array(z.string().min(1)).default(['*']).describe('Origins permitted; "*" permits all (default ["*"]).'),
  })
  .prefault({})
  .describe('CORS for the HTTP endpoint.');

export type CorsConfig = z.output<typeof corsSchema>;
