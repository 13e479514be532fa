import { STAGE } from '../../core/hooks/stages.js';
import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { TelemetryExport } from './export/telemetry-export.js';
import { MetricsListener } from './listener/metrics-listener.js';
import { metricsListenerTls } from './listener/metrics-tls.js';
import { recordAccelerationMetrics } from './recorders/acceleration-metrics.js';
import { recordDatasetMetrics } from './recorders/dataset-metrics.js';
import { DatasetStateWatcher } from './recorders/dataset-state-watcher.js';
import { recordQueryMetrics } from './recorders/query-metrics.js';
import { recordRequestMetrics } from './recorders/request-metrics.js';
import { metricsSchema, telemetrySchema, type MetricsConfig, type TelemetryConfig } from './schema.js';
import { resolveTelemetrySettings } from './settings.js';

export const TELEMETRY_PLUGIN_NAME = 'telemetry';

/** How often dataset states are compared (load errors, first loads): cheap, in-memory. */
const DATASET_WATCH_INTERVAL_MS = 500;

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.telemetry', schema: telemetrySchema, secretFields: ['otel_exporter.headers.*'] },
  { path: 'runtime.metrics', schema: metricsSchema },
];

/**
 * The runtime's metrics: records the query, request and dataset families into the metrics
 * registry (core/metrics/registry.ts) and exports the whole registry, with what other
 * plugins declare there, on the `--metrics` listener (Prometheus) and to an OTLP collector.
 */
export function createTelemetryPlugin(): QuarryPlugin {
  return {
    name: TELEMETRY_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      // Both sections have defaults, so they are always present once validated.
      const telemetry = runtime.section<TelemetryConfig>('runtime.telemetry')!;
      const settings = resolveTelemetrySettings(telemetry, runtime.section<MetricsConfig>('runtime.metrics') ?? []);
      recordQueryMetrics(runtime);
      recordRequestMetrics(runtime);
      const onDatasetChanged = recordAccelerationMetrics(runtime, settings.isMetricEnabled);

      let watcher: DatasetStateWatcher | undefined;
      let exporter: TelemetryExport | undefined;
      let listener: MetricsListener | undefined;
      const address = runtime.listenAddresses.metrics;
      if (address !== undefined) {
        runtime.reportListener({
          name: 'metrics',
          endpoint: () => listener?.endpoint ?? address,
          status: () => (listener ? listener.state : 'Initializing'),
        });
      }

      runtime.hooks.startup.tapPromise(TELEMETRY_PLUGIN_NAME, async () => {
        const onDatasetState = recordDatasetMetrics(runtime);
        watcher = new DatasetStateWatcher(
          () => runtime.engine.datasets(),
          (dataset, from) => {
            onDatasetState(dataset);
            if (from === 'initializing' && dataset.state === 'ready') onDatasetChanged?.(dataset.name);
          },
        );
        watcher.start(DATASET_WATCH_INTERVAL_MS);
        exporter = await TelemetryExport.create({
          registry: runtime.metrics,
          settings,
          prometheus: address !== undefined,
          otelExporter: telemetry.otel_exporter,
          log: runtime.log,
        });
        if (address === undefined) return;
        const render = async () => {
          // A load that failed since the last tick shows in this scrape, not the next one.
          watcher?.check();
          return exporter!.prometheusText();
        };
        listener = await MetricsListener.start({ address, render, tls: metricsListenerTls(runtime), log: runtime.log });
        // Worded like the core's "HTTP listening" and "Flight listening" lines.
        runtime.log.info('Metrics listening', { endpoint: `${listener.url}/metrics` });
        if (!settings.enabled) runtime.log.warn('runtime.telemetry.enabled is false: the metrics listener answers /health, and /metrics exports no metrics');
      });

      runtime.hooks.shutdown.stop.tapPromise({ name: TELEMETRY_PLUGIN_NAME, stage: STAGE.STOP_PLUGINS }, async () => {
        watcher?.stop();
        await listener?.close();
        await exporter?.stop();
      });
    },
  };
}
