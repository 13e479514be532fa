import { z } from 'zod';
import { positiveDuration, positiveInteger, stringMap } from '../../core/manifest/fields.js';
import { objectStoreUriSchema } from '../../core/manifest/object-store-uri.js';

/** `runtime.source_rate_control`: limits on requests to upstream sources (spec, runtime.source_rate_control). */
export const sourceRateControlSchema = z
  .strictObject({
    state_location: objectStoreUriSchema()
      .optional()
      .describe('Object-store root of shared rate-control state (file:// or s3://, ending in /); unset: limits are per instance.'),
    params: stringMap().optional().describe('Object-store credentials for state_location; ${ secrets:NAME } allowed.'),
    refresh_interval: positiveDuration().default(30_000).describe('How often state is refreshed and persisted (default 30s).'),
    codehost_concurrent_connections_limit: positiveInteger()
      .default(10)
      .describe('Concurrent code-hosting HTTP requests per authentication context (default 10).'),
  })
  .prefault({})
  .describe('Outbound request limits to upstream data sources.');

export type SourceRateControlConfig = z.output<typeof sourceRateControlSchema>;
