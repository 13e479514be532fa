import { z } from 'zod';
import { positiveDuration, positiveInteger, stringMap } from '../../core/manifest/fields.js';
import { objectStoreUriSchema } from '../../core/manifest/object-store-uri.js';

/** `runtime.scheduler`: the cluster scheduler role (spec, runtime.scheduler). */
export const schedulerSchema = z
  .strictObject({
    state_location: objectStoreUriSchema(
      'the object-store URI of the shared cluster state, e.g. file:///var/lib/quarry/cluster/ or s3://my-bucket/quarry/cluster/',
    ).describe('Object-store root of shared cluster state (file:// or s3://, ending in /). Required.'),
    params: stringMap().optional().describe('Object-store parameters for state_location; ${ secrets:NAME } allowed.'),
    partition_assignment_interval: positiveDuration().default(30_000).describe('Period of partition assignment cycles (default 30s).'),
    max_partition_assignments_per_interval: positiveInteger().default(100).describe('Assignments per interval (default 100).'),
    max_partitions_per_executor: positiveInteger().default(1000).describe('Partitions per executor (default 1000).'),
    partition_discovery_timeout: positiveDuration().default(60_000).describe('Wait for executor discovery (default 60s).'),
  })
  .optional()
  .describe('Cluster scheduler settings (cluster mode with --role scheduler).');

export type SchedulerConfig = z.output<typeof schedulerSchema>;
