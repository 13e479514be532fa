import { CALLER_VARIABLE } from '../../core/engine/sandbox.js';

/** The stored tables (`stored-schemas.ts`), as the engine's `appendToTable` names them. */
export const STORED_TABLE_REFS = {
  rows: { schema: 'runtime', name: 'task_history_rows' },
  shapes: { schema: 'runtime', name: 'task_history_shapes' },
  extras: { schema: 'runtime', name: 'task_history_extras' },
} as const;
const qualified = (table: { schema: string; name: string }) => `${table.schema}.${table.name}`;
export const ROWS_TABLE = qualified(STORED_TABLE_REFS.rows);
export const SHAPES_TABLE = qualified(STORED_TABLE_REFS.shapes);
export const EXTRAS_TABLE = qualified(STORED_TABLE_REFS.extras);

/**
 * A query's labels as Spice names them, in this order, each present only when it has a value:
 * the counts are the row's, the rest its shape's. Milliseconds keep three decimals and are
 * spelled as JavaScript spells them ("12", "0.5", "1.235").
 */
const QUERY_LABELS = `map_from_entries(list_filter([
    {'key': 'protocol', 'value': s.protocol},
    {'key': 'datasets', 'value': s.datasets},
    {'key': 'rows_produced', 'value': CAST(CAST(r.rows_produced AS BIGINT) AS VARCHAR)},
    {'key': 'query_execution_duration_ms', 'value': CASE WHEN r.execution_us % 1000 = 0 THEN CAST(CAST(r.execution_us / 1000 AS BIGINT) AS VARCHAR) ELSE CAST(r.execution_us / 1000 AS VARCHAR) END},
    {'key': 'results_cache_hit', 'value': CASE WHEN s.cache_status IN ('HIT', 'STALE') THEN 'true' ELSE 'false' END},
    {'key': 'statement_type', 'value': s.statement_type},
    {'key': 'principal', 'value': s.principal},
    {'key': 'results_cache_status', 'value': s.cache_status},
    {'key': 'accelerated', 'value': CASE WHEN s.accelerated = 1 THEN 'true' END},
    {'key': 'runtime_query', 'value': CASE WHEN s.protocol = 'internal' THEN 'true' END},
    {'key': 'error_code', 'value': s.error_code}
  ], entry -> entry.value IS NOT NULL))`;

/**
 * `runtime.task_history` with Spice's columns and types, over the rows as they are stored: ids
 * back to lowercase hex, microseconds to nanosecond timestamps, a query's shape and counts to
 * the labels map. Rows are stored compact because one is written for every query (on a cache
 * hit, the largest part of its cost) and read rarely; the engine spells out only the rows and
 * columns a query reads. A view carries no NOT NULL: the columns Spice declares NOT NULL are
 * never null here either, but DESCRIBE shows them nullable.
 *
 * Each caller sees its own queries: the engine sets `quarry_caller` to the caller's principal
 * id while it prepares a statement naming the view, or to `*` for a caller that sees all (an
 * admin key, or no auth). Rows of the runtime's own tasks (refreshes) have no principal and
 * show only to those. Unset, the view shows nothing.
 */
export const TASK_HISTORY_VIEW_SQL = `CREATE OR REPLACE VIEW runtime.task_history AS
SELECT
  coalesce(x.trace_id, printf('%016x%016x', r.trace_high, r.trace_low)) AS trace_id,
  coalesce(x.span_id, printf('%016x', r.span_id)) AS span_id,
  x.parent_span_id AS parent_span_id,
  s.task AS task,
  s.input AS input,
  x.captured_output AS captured_output,
  CAST(r.start_time AS TIMESTAMP_NS) AS start_time,
  CAST(r.end_time AS TIMESTAMP_NS) AS end_time,
  r.execution_duration_ms AS execution_duration_ms,
  x.error_message AS error_message,
  coalesce(x.labels, ${QUERY_LABELS}) AS labels
FROM ${ROWS_TABLE} r
JOIN ${SHAPES_TABLE} s ON s.id = r.shape
LEFT JOIN ${EXTRAS_TABLE} x ON x.id = r.extra
WHERE getvariable('${CALLER_VARIABLE}') = '*' OR s.principal = getvariable('${CALLER_VARIABLE}')`;

/** Deletes the shapes below `$1` (ids no longer handed out: `StoredIds.forget`) that no stored row names. */
export const UNUSED_SHAPES_SQL = `DELETE FROM ${SHAPES_TABLE} WHERE id < $1 AND id NOT IN (SELECT shape FROM ${ROWS_TABLE})`;
