import { z } from 'zod';
import { durationSchema, timeSpanSchema } from '../../units.js';
import { requiredField } from '../messages.js';
import { indexKeyProblem } from '../../engine/acceleration/index-statements.js';
import { retentionProblem } from '../../engine/acceleration/retention.js';
import { columnSchema, datasetEmbeddingSchema } from './search-columns.js';

/**
 * `datasets:` entries. The core serves `file:` sources; connector plugins add the other
 * schemes (core/engine/sources/connector.ts).
 */
const parameterValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

export const accelerationSchema = z
  .strictObject({
    enabled: z.boolean().default(true),
    /**
     * `arrow` is what Spice pods default to; `sqlite` and `postgres` are Spice's other
     * engines. Quarry accelerates with its embedded DuckDB whatever is named (the latter two
     * with a warning: they would otherwise suggest a SQLite file or a PostgreSQL server).
     */
    engine: z.enum(['duckdb', 'arrow', 'sqlite', 'postgres']).default('duckdb'),
    mode: z.enum(['memory', 'file']).default('memory'),
    refresh_check_interval: durationSchema().optional(),
    refresh_mode: z.enum(['full', 'append']).optional(),
    refresh_sql: z.string().optional(),
    refresh_on_startup: z.enum(['auto', 'always']).optional(),
    refresh_retry_enabled: z.boolean().optional(),
    refresh_retry_max_attempts: z.number().int().nonnegative().optional(),
    primary_key: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
    /** Spice's `refresh_data_window`: only source rows whose time_column is within this window before now are loaded. */
    refresh_data_window: timeSpanSchema().optional(),
    /** Spice's retention: rows older than `retention_period` by time_column, or selected by `retention_sql`, are deleted every `retention_check_interval`. */
    retention_check_enabled: z.boolean().optional(),
    retention_period: timeSpanSchema().optional(),
    retention_check_interval: durationSchema().optional(),
    retention_sql: z.string().min(1).optional(),
    /** Spice's `{ <column> | "(a, b)": enabled | unique }`: engine indexes on the accelerated table. */
    indexes: z.record(z.string(), z.enum(['enabled', 'unique'], { error: 'expected enabled (an index) or unique (an index whose keys may not repeat)' })).optional(),
    /** `{ <primary key>: upsert | drop }`: what a row whose key is already stored does. */
    on_conflict: z.record(z.string(), z.enum(['upsert', 'drop'], { error: 'expected upsert (replace the stored row) or drop (keep the stored row)' })).optional(),
    // columnar_* are engine-wide (rules/datasets.ts refuses them here); the JSON Schema says so too.
    params: z.record(z.string(), parameterValue).default({}).meta({ propertyNames: { not: { pattern: '^columnar_' } } }),
    /**
     * Cluster mode: how rows split into partitions owned by executors — a column, a list of
     * SQL expressions, or `bucket(N, column)`. The scheduler plugin parses and enforces it.
     */
    partition_by: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  });
// No `.default()` on the block: zod 4 would apply it even when the block is absent, and a
// dataset without `acceleration:` is read live from its source (as in Spice).

/** Dataset names become SQL table names: a plain identifier, optionally schema-qualified. */
export const DATASET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

export const datasetSchema = z.strictObject({
  from: z
    .string({ error: requiredField('the data source, e.g. file:data/orders.parquet') })
    .min(1, 'expected a data source, e.g. file:data/orders.parquet'),
  name: z
    .string({ error: requiredField('the SQL table name of the dataset, e.g. orders') })
    .regex(DATASET_NAME_PATTERN, 'expected an identifier (letters, digits and _, optionally schema.table), e.g. orders'),
  description: z.string().optional(),
  /** `read` (default) or `read_write` (accepts INSERT / DoPut once writes land). */
  access: z.enum(['read', 'read_write']).default('read'),
  time_column: z.string().optional(),
  time_format: z.enum(['timestamp', 'timestamptz', 'unix_seconds', 'unix_millis', 'ISO8601', 'date']).optional(),
  params: z.record(z.string(), parameterValue).default({}),
  acceleration: accelerationSchema.optional(),
  /**
   * Spice's per-column metadata: `description` is shown by the MCP table_schema tool;
   * `full_text_search` and `embeddings` are served by the search plugin; other keys Spice
   * takes here are kept and warned about (see warnings.ts).
   */
  columns: z.array(columnSchema).optional(),
  /** Spice's older dataset-level embeddings (`column`, `use`, `column_pk`), served by the search plugin. */
  embeddings: z.array(datasetEmbeddingSchema).optional(),
}).superRefine((dataset, context) => {
  for (const problem of accelerationProblems(dataset)) context.addIssue({ code: 'custom', path: problem.path, message: problem.message });
});

/** Rules across acceleration keys; each message names the dataset, since datasets are listed by index. */
function accelerationProblems(dataset: { name: string; time_column?: string | undefined; acceleration?: z.output<typeof accelerationSchema> | undefined }): Array<{ path: string[]; message: string }> {
  const acceleration = dataset.acceleration;
  if (!acceleration) return [];
  const problems: Array<{ path: string[]; message: string }> = [];
  // columnar_* inside acceleration.params is refused by rules/datasets.ts.
  const primaryKey = acceleration.primary_key === undefined ? [] : [acceleration.primary_key].flat();
  const conflictKeys = Object.keys(acceleration.on_conflict ?? {});
  if (conflictKeys.length > 0) {
    const keyText = primaryKey.length === 1 ? primaryKey[0]! : `(${primaryKey.join(', ')})`;
    if (primaryKey.length === 0) {
      problems.push({ path: ['acceleration', 'on_conflict'], message: `dataset "${dataset.name}": on_conflict needs acceleration.primary_key (the column(s) a conflict is detected on)` });
    } else if (conflictKeys.length > 1 || conflictKeys[0]!.replaceAll(' ', '') !== keyText.replaceAll(' ', '')) {
      problems.push({ path: ['acceleration', 'on_conflict'], message: `dataset "${dataset.name}": on_conflict must have one entry, keyed by the primary key: { ${keyText}: upsert } or { ${keyText}: drop }` });
    }
  }
  for (const key of Object.keys(acceleration.indexes ?? {})) {
    const problem = indexKeyProblem(key);
    if (problem) problems.push({ path: ['acceleration', 'indexes', key], message: `dataset "${dataset.name}": ${problem}` });
  }
  if (acceleration.refresh_data_window !== undefined && dataset.time_column === undefined) {
    problems.push({ path: ['acceleration', 'refresh_data_window'], message: `dataset "${dataset.name}": refresh_data_window needs time_column (only rows within the window by that column are loaded)` });
  }
  const retention = retentionProblem(dataset);
  if (retention) problems.push({ path: ['acceleration', retention.key], message: retention.message });
  if (acceleration.refresh_mode === 'append' && dataset.time_column === undefined && primaryKey.length === 0) {
    problems.push({ path: ['acceleration', 'refresh_mode'], message: `dataset "${dataset.name}": refresh_mode append needs time_column (rows newer than the newest loaded are added) or acceleration.primary_key (source rows are merged by key)` });
  }
  return problems;
}

export type DatasetConfig = z.output<typeof datasetSchema>;
export type AccelerationConfig = z.output<typeof accelerationSchema>;

