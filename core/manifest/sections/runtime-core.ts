import { z } from 'zod';
import { durationSchema, sizeSchema } from '../../units.js';
import { DEFAULT_MAX_VALUE_BYTES } from '../../engine/arrow/accumulators/value-too-large.js';

/**
 * The `runtime:` fields the core owns (engine, lifecycle, listeners). Plugin-owned
 * sections (auth, caching, telemetry, ...) are declared beside their plugins and merged
 * into the runtime object by the manifest schema builder.
 */
/** `runtime.query.max_sql_length` unless set: 1 MiB of characters. */
export const DEFAULT_MAX_SQL_LENGTH = 1024 * 1024;

/** The largest `runtime.query.max_value_size` accepted: a batch of Arrow strings addresses at most 2 GiB. */
const MAX_VALUE_SIZE_CEILING = 1024 * 1024 * 1024;

export const querySchema = z
  .strictObject({
    /** Default: 90% of the memory the process may use (cgroup limit, else total memory), computed at start-up. */
    memory_limit: sizeSchema().optional(),
    spill_compression: z.enum(['zstd', 'lz4_frame', 'uncompressed']).default('zstd'),
    temp_directory: z.string().min(1).optional(),
    /** Longest SQL text accepted, in characters (SQL_TOO_LONG above it). */
    max_sql_length: sizeSchema().refine((length) => length > 0, 'expected a length greater than 0, e.g. 1MiB').default(DEFAULT_MAX_SQL_LENGTH),
    /** Longest string or blob a result may carry (RESULT_VALUE_TOO_LARGE above it); Arrow's 32-bit offsets cap it at 1 GiB. */
    max_value_size: sizeSchema()
      .refine((size) => size > 0 && size <= MAX_VALUE_SIZE_CEILING, 'expected a size from 1 byte to 1GiB, e.g. 64MiB')
      .default(DEFAULT_MAX_VALUE_BYTES),
  })
  .default({ spill_compression: 'zstd', max_sql_length: DEFAULT_MAX_SQL_LENGTH, max_value_size: DEFAULT_MAX_VALUE_BYTES });

/** `runtime.tls`: TLS for every listener. Cross-field rules live in the manifest's refinements. */
export const tlsSchema = z.strictObject({
  enabled: z.boolean().default(false),
  certificate: z.string().optional(),
  certificate_file: z.string().optional(),
  key: z.string().optional(),
  key_file: z.string().optional(),
  client_auth_mode: z.enum(['none', 'request', 'required']).default('none'),
  client_auth_ca_file: z.string().optional(),
  client_auth_ca: z.string().optional(),
});

/** `runtime.flight`: the Flight SQL listener (behaviour lands with the Flight issue). */
export const flightSchema = z.strictObject({
  max_message_size: sizeSchema().optional(),
  do_put_rate_limit_enabled: z.boolean().default(true),
});

/**
 * A number in `runtime.params`, a string map in Spice pods: a number, or a string holding only
 * one (`"8"`). Not z.coerce: that reads `[]`, `""`, `null` and `false` as 0 and `true` as 1.
 */
const paramNumber = z.union([z.number(), z.string().regex(/^\s*-?\d+(?:\.\d+)?\s*$/).transform(Number)], { error: 'expected a number, e.g. 8 or "8"' });
const positiveInteger = paramNumber.pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));
const nonNegativeInteger = paramNumber.pipe(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER));
const fraction = paramNumber.pipe(z.number().min(0).max(1));

/**
 * `runtime.params`: a string map in Spice pods; the keys the spec names are checked here,
 * other keys are kept and warned about by the loader.
 */
export const knownParams = {
  http_max_concurrent_requests: positiveInteger,
  http_requests_per_second_limit: positiveInteger,
  http_requests_per_minute_limit: positiveInteger,
  http_rate_control_jitter_min: durationSchema(),
  http_rate_control_jitter_max: durationSchema(),
  geo: z.enum(['enabled', 'disabled']),
  columnar_footer_cache_mb: nonNegativeInteger,
  columnar_filter_propagation: z.enum(['enabled', 'disabled']),
  columnar_optimizer_rules: z.string().min(1),
  columnar_compaction_memory_fraction: fraction,
  columnar_sort_merge_min_rows: nonNegativeInteger,
  columnar_sort_merge_memory_pool_fraction: fraction,
  /** Deprecated: mapped to runtime.source_rate_control.codehost_concurrent_connections_limit. */
  codehost_max_concurrent_connections: positiveInteger,
} as const;

export const paramsSchema = z
  .object(knownParams)
  .partial()
  .catchall(z.union([z.string(), z.number(), z.boolean()]))
  .default({});

export const coreRuntimeShape = {
  dataset_load_parallelism: z.number().int().positive().optional(),
  shutdown_timeout: durationSchema()
    .refine((ms) => ms > 0, 'expected a duration greater than 0, e.g. 30s')
    .default(30_000),
  ready_state: z.enum(['on_load', 'on_registration']).default('on_load'),
  output_level: z.enum(['info', 'verbose', 'very_verbose']).default('info'),
  query: querySchema,
  params: paramsSchema,
  tls: tlsSchema.optional(),
  flight: flightSchema.default({ do_put_rate_limit_enabled: true }),
};

/** The core's runtime fields alone (the loader merges plugin sections into the same object). */
export const coreRuntimeSchema = z.strictObject(coreRuntimeShape);
export type CoreRuntimeConfig = z.output<typeof coreRuntimeSchema>;
export type TlsConfig = z.output<typeof tlsSchema>;
