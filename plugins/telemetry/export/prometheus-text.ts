import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { DataPointType, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { prometheusName } from '../settings.js';

export { PROMETHEUS_CONTENT_TYPE } from './content-type.js';

/**
 * The reader behind `/metrics`. Never starts the exporter's own server: the metrics
 * listener serves the text. Scope labels are left out (there is one scope, `quarry`).
 */
export function createPrometheusReader(): PrometheusExporter {
  return new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
}

/** Collects now and renders the Prometheus text exposition format. */
export async function renderPrometheusText(reader: PrometheusExporter): Promise<string> {
  const { resourceMetrics, errors } = await reader.collect();
  if (errors.length > 0) throw new AggregateError(errors, 'metrics collection failed');
  return serializeWithSpiceNames(resourceMetrics);
}

/**
 * Serializes like the OpenTelemetry Prometheus exporter, then takes back the `_total` it
 * appends to counters: Spice exports `query_executions`, not `query_executions_total`, and
 * dashboards written for Spice query those names. (`promtool check metrics` notes that
 * counters should end in `_total`; docs/metrics.md explains the choice.) A counter whose
 * own name ends in `_total` keeps it.
 */
export function serializeWithSpiceNames(resourceMetrics: ResourceMetrics): string {
  const text = new PrometheusSerializer(undefined, false, undefined, false, true).serialize(resourceMetrics);
  const appended = new Set<string>();
  for (const scope of resourceMetrics.scopeMetrics) {
    for (const metric of scope.metrics) {
      const name = prometheusName(metric.descriptor.name);
      if (metric.dataPointType === DataPointType.SUM && metric.isMonotonic && !name.endsWith('_total')) appended.add(`${name}_total`);
    }
  }
  if (appended.size === 0) return text;
  return text
    .split('\n')
    .map((line) => renameLine(line, appended))
    .join('\n');
}

/** `# HELP x_total ...`, `# TYPE x_total counter`, `x_total{...} 1`: the name is the first token after the marker. */
function renameLine(line: string, appended: ReadonlySet<string>): string {
  const comment = /^# (HELP|TYPE|UNIT) (\S+)/.exec(line);
  if (comment) {
    const name = comment[2]!;
    return appended.has(name) ? line.replace(` ${name}`, ` ${name.slice(0, -'_total'.length)}`) : line;
  }
  const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  const name = sample?.[1];
  return name !== undefined && appended.has(name) ? name.slice(0, -'_total'.length) + line.slice(name.length) : line;
}
