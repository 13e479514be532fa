import { credentials, Metadata } from '@grpc/grpc-js';
import { OTLPMetricExporter as OtlpGrpcExporter } from '@opentelemetry/exporter-metrics-otlp-grpc';
import { OTLPMetricExporter as OtlpHttpExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PeriodicExportingMetricReader, type PushMetricExporter, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { Logger } from '../../../core/log.js';
import type { OtelExporterConfig } from '../schema.js';
import { prometheusName } from '../settings.js';
import { parseOtlpEndpoint, type OtlpTarget } from './otlp-endpoint.js';

/** A push can take at most this long (or the interval, if shorter): the SDK needs timeout ≤ interval. */
const MAX_EXPORT_TIMEOUT_MS = 30_000;

type ExportCallback = Parameters<PushMetricExporter['export']>[1];

/**
 * Wraps the OTLP exporter: forwards only the metrics of the allow-list (when one is set) and
 * logs when pushes start failing and when they recover, rather than once per interval. Names
 * are matched after the prefix, as the spec says; an entry may be written in OpenTelemetry
 * form (`quarry.query_executions`) or in the Prometheus form shown on `/metrics`.
 */
export class CollectorExporter implements PushMetricExporter {
  readonly #inner: PushMetricExporter;
  readonly #allowed: ReadonlySet<string> | undefined;
  readonly #log: Logger;
  readonly #target: string;
  #failing = false;

  constructor(inner: PushMetricExporter, options: { allowed: readonly string[]; log: Logger; target: string }) {
    this.#inner = inner;
    this.#allowed = options.allowed.length > 0 ? new Set(options.allowed) : undefined;
    this.#log = options.log;
    this.#target = options.target;
    if (inner.selectAggregationTemporality) this.selectAggregationTemporality = inner.selectAggregationTemporality.bind(inner);
    if (inner.selectAggregation) this.selectAggregation = inner.selectAggregation.bind(inner);
  }

  selectAggregationTemporality?: PushMetricExporter['selectAggregationTemporality'];
  selectAggregation?: PushMetricExporter['selectAggregation'];

  export(metrics: ResourceMetrics, resultCallback: ExportCallback): void {
    const allowed = this.#allowed;
    const selected = allowed
      ? {
          ...metrics,
          scopeMetrics: metrics.scopeMetrics
            .map((scope) => ({ ...scope, metrics: scope.metrics.filter((metric) => allowed.has(metric.descriptor.name) || allowed.has(prometheusName(metric.descriptor.name))) }))
            .filter((scope) => scope.metrics.length > 0),
        }
      : metrics;
    // Nothing on the list was recorded yet: an empty push would only cost the collector a request.
    if (selected.scopeMetrics.length === 0) return resultCallback({ code: 0 });
    this.#inner.export(selected, (result) => {
      const failed = result.code !== 0;
      if (failed && !this.#failing) this.#log.warn('pushing metrics failed; retrying every push_interval', { to: this.#target, error: result.error?.message });
      if (!failed && this.#failing) this.#log.info('pushing metrics works again', { to: this.#target });
      this.#failing = failed;
      resultCallback(result);
    });
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }
}

/** The OTLP exporter for a target: HTTP (JSON body) with headers, or gRPC with lowercase metadata. */
export function createOtlpExporter(target: OtlpTarget, headers: Readonly<Record<string, string>>, timeoutMillis: number): PushMetricExporter {
  if (target.protocol === 'http') return new OtlpHttpExporter({ url: target.url, headers: { ...headers }, timeoutMillis });
  const metadata = new Metadata();
  // gRPC metadata keys are lowercase ASCII; a YAML key written as `Authorization` still works.
  for (const [key, value] of Object.entries(headers)) metadata.set(key.toLowerCase(), value);
  return new OtlpGrpcExporter({ url: `http://${target.address}`, metadata, credentials: credentials.createInsecure(), timeoutMillis });
}

/** Where pushes go, for logs and /v1/status. */
export function describeTarget(target: OtlpTarget): string {
  return target.protocol === 'http' ? `OTLP/HTTP ${target.url}` : `OTLP/gRPC ${target.address}`;
}

/** The periodic reader pushing to `otel_exporter.endpoint` every `push_interval`. */
export function createPushReader(config: OtelExporterConfig, log: Logger): { reader: PeriodicExportingMetricReader; target: OtlpTarget } {
  const target = parseOtlpEndpoint(config.endpoint);
  const timeoutMillis = Math.min(config.push_interval, MAX_EXPORT_TIMEOUT_MS);
  const exporter = new CollectorExporter(createOtlpExporter(target, config.headers, timeoutMillis), { allowed: config.metrics, log, target: describeTarget(target) });
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: config.push_interval, exportTimeoutMillis: timeoutMillis });
  return { reader, target };
}
