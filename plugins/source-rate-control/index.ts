import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import { openObjectStore } from '../../core/object-store/open-object-store.js';
import type { ObjectStore } from '../../core/object-store/types.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { migrateCodehostParam } from './deprecation.js';
import './errors.js';
import { validateDatasetOverrides, type RuntimeRateParams } from './limits.js';
import { RateController } from './rate-controller.js';
import { sourceRateControlSchema, type SourceRateControlConfig } from './schema.js';

export const SOURCE_RATE_CONTROL_PLUGIN_NAME = 'source-rate-control';

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.source_rate_control', schema: sourceRateControlSchema, secretFields: ['params.*'], resolve: migrateCodehostParam },
];

/**
 * Limits on requests to upstream sources: taps `outbound.request`, which the core's outbound
 * client passes before every attempt of every connector request. Limits are per upstream
 * origin (runtime.params http_* defaults, per-dataset overrides) and, for code-hosting
 * connectors, per credential; with `state_location` the rate quotas are shared by all replicas.
 */
export function createSourceRateControlPlugin(): QuarryPlugin {
  return {
    name: SOURCE_RATE_CONTROL_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      const waits = runtime.metrics.histogram('http_rate_control_wait_ms', { description: 'Time an upstream request attempt waited for rate-control permits', unit: 'ms' });
      const lostRaces = runtime.metrics.counter('http_rate_control_lease_conflicts', { description: 'Shared rate-control ledger writes that lost a compare-and-swap race and were retried' });
      let controller: RateController | undefined;
      let store: ObjectStore | undefined;
      runtime.hooks.config.tapPromise({ name: SOURCE_RATE_CONTROL_PLUGIN_NAME }, async (manifest) => {
        const params = manifest.runtime.params as RuntimeRateParams;
        for (const dataset of manifest.datasets) validateDatasetOverrides(params, dataset.name, dataset.params);
        return manifest;
      });
      runtime.hooks.startup.tapPromise({ name: SOURCE_RATE_CONTROL_PLUGIN_NAME }, async () => {
        const config = runtime.section<SourceRateControlConfig>('runtime.source_rate_control')!;
        if (config.state_location !== undefined) {
          store = openObjectStore(config.state_location, config.params ?? {}, runtime.source.directory);
          runtime.log.info('outbound rate limits are shared across replicas', { state_location: config.state_location, lease_window_ms: config.refresh_interval });
        }
        controller = new RateController({
          runtimeParams: runtime.manifest.runtime.params as RuntimeRateParams,
          codehostConcurrency: config.codehost_concurrent_connections_limit,
          store,
          leaseWindowMs: config.refresh_interval,
          log: runtime.log,
          onWaited: (origin, connector, waitedMs) => waits.record(waitedMs, { origin, connector }),
          onLostRace: () => lostRaces.add(1),
        });
      });
      runtime.hooks.outbound.request.tapPromise({ name: SOURCE_RATE_CONTROL_PLUGIN_NAME, stage: STAGE.TRANSPORT }, async (request) => {
        await controller?.admit(request);
      });
      runtime.hooks.shutdown.stop.tapPromise({ name: SOURCE_RATE_CONTROL_PLUGIN_NAME, stage: STAGE.STOP_PLUGINS }, async () => {
        await store?.close?.();
      });
    },
  };
}
