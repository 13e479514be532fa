/** The table, as Spice names it; the `runtime` schema holds the runtime's own tables. */
export const TASK_HISTORY_TABLE = 'runtime.task_history';

/**
 * Columns and types of Spice's `runtime.task_history` (DuckDB spelling): nanosecond
 * timestamps without time zone (UTC wall clock), labels as a string map.
 */
export const CREATE_TASK_HISTORY_SQL = `CREATE TABLE IF NOT EXISTS ${TASK_HISTORY_TABLE} (
  trace_id VARCHAR NOT NULL,
  span_id VARCHAR NOT NULL,
  parent_span_id VARCHAR,
  task VARCHAR NOT NULL,
  input VARCHAR NOT NULL,
  captured_output VARCHAR,
  start_time TIMESTAMP_NS NOT NULL,
  end_time TIMESTAMP_NS NOT NULL,
  execution_duration_ms DOUBLE NOT NULL,
  error_message VARCHAR,
  labels MAP(VARCHAR, VARCHAR) NOT NULL
)`;

/** One row of the table. */
export interface TaskRow {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly task: string;
  readonly input: string;
  readonly capturedOutput: string | undefined;
  readonly startTime: Date;
  readonly endTime: Date;
  readonly executionDurationMs: number;
  readonly errorMessage: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
}

/** The JSON shape of one row in the INSERT below (DuckDB `from_json` structure). */
const ROW_STRUCTURE = JSON.stringify([
  {
    trace_id: 'VARCHAR',
    span_id: 'VARCHAR',
    parent_span_id: 'VARCHAR',
    task: 'VARCHAR',
    input: 'VARCHAR',
    captured_output: 'VARCHAR',
    start_us: 'BIGINT',
    end_us: 'BIGINT',
    execution_duration_ms: 'DOUBLE',
    error_message: 'VARCHAR',
    labels: 'JSON',
  },
]);

const INSERT_FROM_JSON_SQL = `INSERT INTO ${TASK_HISTORY_TABLE}
SELECT r.trace_id, r.span_id, r.parent_span_id, r.task, r.input, r.captured_output,
       make_timestamp(r.start_us), make_timestamp(r.end_us), r.execution_duration_ms, r.error_message,
       CAST(r.labels AS MAP(VARCHAR, VARCHAR))
FROM (SELECT unnest(from_json(decode($1)::JSON, '${ROW_STRUCTURE}')) AS r)`;

/** Lone UTF-16 surrogates become U+FFFD: DuckDB's JSON parser rejects them (and the whole batch with them). */
function wellFormed(text: string): string {
  // Almost no text has lone surrogates: one native scan decides, without allocating.
  return text.isWellFormed() ? text : text.toWellFormed();
}

function wellFormedLabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const key in labels) copy[wellFormed(key)] = wellFormed(labels[key]!);
  return copy;
}

/**
 * A row as the JSON object the INSERT below reads. Encoded when the row is queued: the
 * buffer then holds one string per row instead of a row and its labels as objects, which
 * a busy runtime would otherwise carry into the old generation by the thousand.
 * Timestamps travel as epoch microseconds, labels as a JSON object cast to the map type.
 */
export function rowJson(row: TaskRow): string {
  return JSON.stringify({
    trace_id: row.traceId,
    span_id: row.spanId,
    parent_span_id: row.parentSpanId ?? null,
    task: row.task,
    input: wellFormed(row.input),
    captured_output: row.capturedOutput === undefined ? null : wellFormed(row.capturedOutput),
    start_us: row.startTime.getTime() * 1000,
    end_us: row.endTime.getTime() * 1000,
    execution_duration_ms: row.executionDurationMs,
    error_message: row.errorMessage === undefined ? null : wellFormed(row.errorMessage),
    labels: wellFormedLabels(row.labels),
  });
}

/**
 * One INSERT for a batch of rows: a JSON array of `rowJson` objects as one BLOB parameter
 * (user SQL text and error messages go in as values, never as SQL; the bytes are passed as
 * they are, not copied into a JS string first). DuckDB parses the JSON on its own threads:
 * binding 11 parameters a row cost ~180 µs of the event loop per row.
 */
export function insertStatement(json: Uint8Array): { sql: string; parameters: unknown[] } {
  return { sql: INSERT_FROM_JSON_SQL, parameters: [json] };
}

/** Removes rows that started before `cutoff`; epoch microseconds as a parameter keeps the clock the writer's. */
export function retentionStatement(cutoff: Date): { sql: string; parameters: unknown[] } {
  return { sql: `DELETE FROM ${TASK_HISTORY_TABLE} WHERE start_time < make_timestamp($1)`, parameters: [cutoff.getTime() * 1000] };
}
