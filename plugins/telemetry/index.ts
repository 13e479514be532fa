import type { ManifestSectionSlice } from '../../core/manifest/slice.js';
import { warnNotYetEffective } from '../../core/plugins/pending.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { metricsSchema, telemetrySchema } from './schema.js';

export const TELEMETRY_PLUGIN_NAME = 'telemetry';

const slices: ManifestSectionSlice[] = [
  { path: 'runtime.telemetry', schema: telemetrySchema, secretFields: ['otel_exporter.headers.*'] },
  { path: 'runtime.metrics', schema: metricsSchema },
];

/** Metrics export over OTLP and per-metric switches (placeholder until the telemetry issue). */
export function createTelemetryPlugin(): QuarryPlugin {
  return {
    name: TELEMETRY_PLUGIN_NAME,
    manifest: slices,
    apply(runtime) {
      warnNotYetEffective(runtime, 'runtime.telemetry', 'telemetry export');
      warnNotYetEffective(runtime, 'runtime.metrics', 'per-metric switching');
    },
  };
}
