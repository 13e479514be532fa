import type { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import type { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { Logger } from '../../../core/log.js';
import type { MetricsRegistry } from '../../../core/metrics/registry.js';
import type { OtelExporterConfig } from '../schema.js';
import { prometheusName, type TelemetrySettings } from '../settings.js';
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
 * The OpenTelemetry SDK and exporters are imported by `create`, and only those the
 * configuration uses: with no --metrics listener and no otel_exporter, none loads at all
 * (they took ~400 ms of start-up when imported with this module).
 */
export class TelemetryExport {
  #provider: MeterProvider | undefined;
  #bridge: RegistryBridge | undefined;
  #prometheus: PrometheusExporter | undefined;
  #renderPrometheusText: ((reader: PrometheusExporter) => Promise<string>) | undefined;

  private constructor() {}

  static async create(options: TelemetryExportOptions): Promise<TelemetryExport> {
    const telemetryExport = new TelemetryExport();
    await telemetryExport.#start(options);
    return telemetryExport;
  }

  async #start(options: TelemetryExportOptions): Promise<void> {
    const { settings, log } = options;
    if (!settings.enabled) {
      if (options.otelExporter?.enabled) log.warn('runtime.telemetry.enabled is false: otel_exporter pushes nothing');
      return;
    }
    const readers: MetricReader[] = [];
    if (options.prometheus) {
      const { createPrometheusReader, renderPrometheusText } = await import('./prometheus-text.js');
      this.#renderPrometheusText = renderPrometheusText;
      this.#prometheus = createPrometheusReader();
      // exporter-prometheus 0.223.0 pins sdk-metrics 2.12.0 while the runtime has 2.12.1: the
      // classes are the same but TypeScript sees two declarations. Pinning both to one version
      // in package.json removes this cast.
      readers.push(this.#prometheus as unknown as MetricReader);
    }
    if (options.otelExporter?.enabled) {
      warnAboutUnprefixedEntries(options.otelExporter.metrics, settings, log);
      const { createPushReader, describeTarget } = await import('./otlp-push.js');
      const push = createPushReader(options.otelExporter, log);
      readers.push(push.reader);
      log.info('pushing metrics', { to: describeTarget(push.target), every_ms: options.otelExporter.push_interval, metrics: options.otelExporter.metrics.length === 0 ? 'all' : options.otelExporter.metrics.join(',') });
    }
    if (readers.length === 0) return;
    const [{ MeterProvider }, { resourceFromAttributes }] = await Promise.all([import('@opentelemetry/sdk-metrics'), import('@opentelemetry/resources')]);
    this.#provider = new MeterProvider({ resource: resourceFromAttributes({ ...settings.resourceAttributes }), readers });
    this.#bridge = new RegistryBridge(options.registry, this.#provider.getMeter('quarry'), {
      exportedName: settings.exportedName,
      isEnabled: settings.isMetricEnabled,
    });
  }

  /** The Prometheus exposition text of every enabled metric, collected now. */
  async prometheusText(): Promise<string> {
    if (!this.#prometheus || !this.#renderPrometheusText) return TELEMETRY_DISABLED_TEXT;
    return this.#renderPrometheusText(this.#prometheus);
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
