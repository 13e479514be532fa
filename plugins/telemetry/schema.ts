import { z } from 'zod';
import { stringMap, positiveDuration } from '../../core/manifest/fields.js';
import { requiredField } from '../../core/manifest/messages.js';

/** `runtime.telemetry.otel_exporter`: pushes metrics to an OpenTelemetry collector. */
export const otelExporterSchema = z.strictObject({
  enabled: z.boolean().default(true).describe('Exporter on or off (default true).'),
  endpoint: z
    .string({ error: requiredField('the collector endpoint, e.g. localhost:4317 (gRPC) or https://collector:4318/v1/metrics (HTTP)') })
    .min(1)
    .describe('Collector endpoint: host:port means gRPC; an http(s):// URL with /v1/metrics means HTTP.'),
  push_interval: positiveDuration().default(60_000).describe('Push frequency (default 60s).'),
  metrics: z.array(z.string().min(1)).default([]).describe('Metric names to export (after metric_prefix); empty exports all.'),
  headers: stringMap().default({}).describe('HTTP headers or gRPC metadata sent with each push; ${ secrets:NAME } allowed.'),
});

/** `runtime.telemetry`: metrics collection and export. */
export const telemetrySchema = z
  .strictObject({
    enabled: z.boolean().default(true).describe('Telemetry collection (default true).'),
    metric_prefix: z
      .string()
      .min(1)
      // OpenTelemetry refuses other instrument names; refusing here names the field at start-up.
      .refine((prefix) => /^[A-Za-z][A-Za-z0-9_.]*$/.test(prefix), 'expected a letter followed by letters, digits, _ or ., e.g. quarry')
      .optional()
      .describe('Prepended to every exported metric name.'),
    properties: stringMap().default({}).describe('Resource attributes on every exported metric.'),
    otel_exporter: otelExporterSchema.optional(),
  })
  .prefault({})
  .describe('Telemetry: metric collection and the OpenTelemetry push exporter.');

/** `runtime.metrics`: switch individual metrics on or off. */
export const metricsSchema = z
  .array(
    z.strictObject({
      name: z.string({ error: requiredField('a metric name, e.g. dataset_acceleration_refresh_lag_ms') }).min(1),
      enabled: z.boolean().optional(),
    }),
  )
  .default([])
  .describe('Metrics switched on or off by name.');

export type OtelExporterConfig = z.output<typeof otelExporterSchema>;
export type TelemetryConfig = z.output<typeof telemetrySchema>;
export type MetricsConfig = z.output<typeof metricsSchema>;
