import { Field, Float64, Int64, Map_, Schema, Struct, TimestampMicrosecond, Uint64, Uint8, Utf8 } from 'apache-arrow';

/**
 * How task rows are stored: every row in `runtime.task_history_rows`, ten fixed-width columns
 * (one is written for every query, so this is the part of a query's cost task history adds);
 * what repeats from row to row once per shape in `runtime.task_history_shapes`; what few rows
 * have (an id not in the usual form, a parent, captured output, an error, another task's
 * labels) in `runtime.task_history_extras`. The view `runtime.task_history` (`view-sql.ts`)
 * joins them into Spice's columns when it is read.
 */

const ENTRY_TYPE = new Struct<{ key: Utf8; value: Utf8 }>([new Field('key', new Utf8(), false), new Field('value', new Utf8(), true)]);
export const LABELS_TYPE = new Map_<Utf8, Utf8>(new Field('entries', ENTRY_TYPE, false));
export { ENTRY_TYPE };

/**
 * Trace and span ids as unsigned integers (zero when the row's extras hold them as text),
 * times in microseconds, a query's counts (zero for other tasks), and the ids of its shape
 * and of its extras (0: none).
 */
export const ROWS_SCHEMA = new Schema([
  new Field('trace_high', new Uint64(), false),
  new Field('trace_low', new Uint64(), false),
  new Field('span_id', new Uint64(), false),
  new Field('shape', new Int64(), false),
  new Field('extra', new Int64(), false),
  new Field('start_time', new TimestampMicrosecond(), false),
  new Field('end_time', new TimestampMicrosecond(), false),
  new Field('execution_duration_ms', new Float64(), false),
  new Field('rows_produced', new Float64(), false),
  new Field('execution_us', new Float64(), false),
]);

/** A query's shape has every column; another task's only `task` and `input` (its labels are extras). */
export const SHAPES_SCHEMA = new Schema([
  new Field('id', new Int64(), false),
  new Field('task', new Utf8(), false),
  new Field('input', new Utf8(), false),
  new Field('protocol', new Utf8(), true),
  new Field('datasets', new Utf8(), true),
  new Field('statement_type', new Utf8(), true),
  new Field('principal', new Utf8(), true),
  new Field('cache_status', new Utf8(), true),
  new Field('accelerated', new Uint8(), false),
  new Field('error_code', new Utf8(), true),
]);

/** `labels` is another task's labels (never null for one) and null for a query. */
export const EXTRAS_SCHEMA = new Schema([
  new Field('id', new Int64(), false),
  new Field('start_time', new TimestampMicrosecond(), false),
  new Field('trace_id', new Utf8(), true),
  new Field('span_id', new Utf8(), true),
  new Field('parent_span_id', new Utf8(), true),
  new Field('captured_output', new Utf8(), true),
  new Field('error_message', new Utf8(), true),
  new Field('labels', LABELS_TYPE, true),
]);
