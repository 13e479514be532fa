import { MeterProvider, type MetricReader } from '@opentelemetry/sdk-metrics';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { Logger } from '../../../core/log.js';
import type { MetricsRegistry } from '../../../core/metrics/registry.js';
import type { OtelExporterConfig } from '../schema.js';
import { prometheusName, type TelemetrySettings } from '../settings.js';
import { createPrometheusReader, renderPrometheusText } from './prometheus-text.js';
import { createPushReader, describeTarget } from './otlp-push.js';
import { RegistryBridge } from './registry-bridge.js';

/** Served on `/metrics` when runtime.telemetry.enabled is false: valid exposition text, no samples. */
export const TELEMETRY_DISABLED_TEXT = '# telemetry is disabled (runtime.telemetry.enabled: false): no metrics are exported\n';

/** How long stopping may spend on the last push before giving up (an unreachable collector must not hold shutdown). */
const SHUTDOWN_TIMEOUT_MS = 5_000;

export interface TelemetryExportOptions {
  registry: MetricsRegistry;
  settings: TelemetrySettings;
  /** Serve the Prometheus text (the --metrics listener is on). */
  prometheus: boolean;
  otelExporter: OtelExporterConfig | undefined;
  log: Logger;
}

/**
 * One OpenTelemetry MeterProvider fed from the registry, with the readers the configuration
 * asks for: the Prometheus reader behind `/metrics` and the OTLP push reader. Resource
 * attributes (`properties`, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) apply to both.
 */
export class TelemetryExport {
  readonly #provider: MeterProvider | undefined;
  readonly #bridge: RegistryBridge | undefined;
  readonly #prometheus: PrometheusExporter | undefined;

  constructor(options: TelemetryExportOptions) {
    const { settings, log } = options;
    if (!settings.enabled) {
      if (options.otelExporter?.enabled) log.warn('runtime.telemetry.enabled is false: otel_exporter pushes nothing');
      return;
    }
    const readers: MetricReader[] = [];
    if (options.prometheus) {
      this.#prometheus = createPrometheusReader();
      // exporter-prometheus 0.223.0 pins sdk-metrics 2.12.0 while the runtime has 2.12.1: the
      // classes are the same but TypeScript sees two declarations. Pinning both to one version
      // in package.json removes this cast.
      readers.push(this.#prometheus as unknown as MetricReader);
    }
    if (options.otelExporter?.enabled) {
      warnAboutUnprefixedEntries(options.otelExporter.metrics, settings, log);
      const push = createPushReader(options.otelExporter, log);
      readers.push(push.reader);
      log.info('pushing metrics', { to: describeTarget(push.target), every_ms: options.otelExporter.push_interval, metrics: options.otelExporter.metrics.length === 0 ? 'all' : options.otelExporter.metrics.join(',') });
    }
    if (readers.length === 0) return;
    this.#provider = new MeterProvider({ resource: resourceFromAttributes({ ...settings.resourceAttributes }), readers });
    this.#bridge = new RegistryBridge(options.registry, this.#provider.getMeter('quarry'), {
      exportedName: settings.exportedName,
      isEnabled: settings.isMetricEnabled,
    });
  }

  /** The Prometheus exposition text of every enabled metric, collected now. */
  async prometheusText(): Promise<string> {
    if (!this.#prometheus) return TELEMETRY_DISABLED_TEXT;
    return renderPrometheusText(this.#prometheus);
  }

  /** Pushes once more (so the collector sees the last values), then stops every reader. */
  async stop(): Promise<void> {
    // The last push still reads the registry, so the bridge is released only afterwards.
    await this.#provider?.shutdown({ timeoutMillis: SHUTDOWN_TIMEOUT_MS });
    this.#bridge?.stop();
  }
}

/**
 * The allow-list is matched after metric_prefix (spec); an entry written without the prefix
 * silently matches nothing, a known Spice foot-gun, so say so at start-up.
 */
function warnAboutUnprefixedEntries(entries: readonly string[], settings: TelemetrySettings, log: Logger): void {
  const prefixed = settings.exportedName('');
  if (prefixed === '') return;
  for (const entry of entries) {
    if (entry.startsWith(prefixed) || prometheusName(entry).startsWith(prometheusName(prefixed))) continue;
    log.warn('an otel_exporter.metrics entry does not start with metric_prefix, so it matches no metric (entries are matched after the prefix)', {
      entry,
      did_you_mean: settings.exportedName(entry),
    });
  }
}
