import type { MetricsConfig, TelemetryConfig } from './schema.js';

/**
 * Metrics Spice keeps off unless `runtime.metrics` turns them on: each costs a
 * `SELECT max(time_column)` per dataset load or refresh.
 */
export const DEFAULT_OFF_METRICS: ReadonlySet<string> = new Set([
  'dataset_acceleration_max_timestamp_before_refresh_ms',
  'dataset_acceleration_max_timestamp_after_refresh_ms',
  'dataset_acceleration_refresh_lag_ms',
  'dataset_acceleration_ingestion_lag_ms',
]);

/** What the telemetry plugin acts on, resolved once from the manifest and the environment. */
export interface TelemetrySettings {
  /** false: nothing leaves the process (no push; `/metrics` exports nothing). */
  readonly enabled: boolean;
  /** Turns a registry name (`query_executions`) into the exported one (`quarry_query_executions`). */
  exportedName(name: string): string;
  /** Whether a metric (by its registry name, without prefix) is recorded and exported. */
  isMetricEnabled(name: string): boolean;
  /** Resource attributes every exported metric carries. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
}

/**
 * `metric_prefix: quarry` gives `quarry_query_executions` (Prometheus' namespace style, the
 * same name on every reader); a prefix that already ends in `_` or `.` is used as written.
 */
export function prefixName(prefix: string | undefined, name: string): string {
  if (prefix === undefined || prefix === '') return name;
  return /[_.]$/.test(prefix) ? `${prefix}${name}` : `${prefix}_${name}`;
}

/** Prometheus' form of a name: characters other than letters, digits and `_` become `_`. */
export function prometheusName(name: string): string {
  return name.replace(/[^a-zA-Z0-9_]/g, '_').replace(/_{2,}/g, '_');
}

/**
 * `OTEL_RESOURCE_ATTRIBUTES` (`k=v,k2=v2`, values percent-encoded) and `OTEL_SERVICE_NAME`,
 * then the manifest's `properties`: explicit entries win, as the spec says.
 */
export function resourceAttributesFrom(properties: Readonly<Record<string, string>>, environment: NodeJS.ProcessEnv): Record<string, string> {
  const attributes: Record<string, string> = { 'service.name': 'quarry' };
  for (const pair of (environment['OTEL_RESOURCE_ATTRIBUTES'] ?? '').split(',')) {
    const separator = pair.indexOf('=');
    if (separator <= 0) continue;
    const key = pair.slice(0, separator).trim();
    const raw = pair.slice(separator + 1).trim();
    if (key === '') continue;
    attributes[key] = safeDecode(raw);
  }
  const serviceName = environment['OTEL_SERVICE_NAME']?.trim();
  if (serviceName) attributes['service.name'] = serviceName;
  return { ...attributes, ...properties };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function resolveTelemetrySettings(telemetry: TelemetryConfig, metrics: MetricsConfig, environment: NodeJS.ProcessEnv = process.env): TelemetrySettings {
  // Later entries win, so a pod can list a metric twice while editing without surprises.
  const switches = new Map<string, boolean>();
  for (const entry of metrics) switches.set(entry.name, entry.enabled ?? true);
  return {
    enabled: telemetry.enabled,
    exportedName: (name) => prefixName(telemetry.metric_prefix, name),
    isMetricEnabled: (name) => switches.get(name) ?? !DEFAULT_OFF_METRICS.has(name),
    resourceAttributes: resourceAttributesFrom(telemetry.properties, environment),
  };
}
