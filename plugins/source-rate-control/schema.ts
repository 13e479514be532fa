import { z } from 'zod';
import { positiveDuration, positiveInteger, stringMap } from '../../core/manifest/fields.js';
import { objectStoreUriSchema } from '../../core/manifest/object-store-uri.js';

/** `runtime.source_rate_control`: limits on requests to upstream sources (spec, runtime.source_rate_control). */
export const sourceRateControlSchema = z
  .strictObject({
    state_location: objectStoreUriSchema()
      .optional()
      .describe('Object-store root of shared rate-control state (file:// or s3://, ending in /); unset: limits are per instance.'),
    params: stringMap().optional().describe('Object-store parameters for state_location (s3: objstore_region, objstore_key, objstore_secret, objstore_endpoint); ${ secrets:NAME } allowed.'),
    refresh_interval: positiveDuration().default(30_000).describe('The lease window: how often each instance leases its share and persists its demand (default 30s).'),
    codehost_concurrent_connections_limit: positiveInteger()
      .default(10)
      .describe('Concurrent code-hosting HTTP requests per authentication context (default 10).'),
  })
  .prefault({})
  .describe('Outbound request limits to upstream data sources.');

export type SourceRateControlConfig = z.output<typeof sourceRateControlSchema>;
