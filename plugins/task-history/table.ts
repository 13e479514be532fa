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

/**
 * JSON texts of strings that come again and again (a repeated query's SQL, label names and
 * values, principals): encoded once. Bounded in entries and in the length of what it keeps.
 */
const encodedTexts = new Map<string, string>();
const MAX_ENCODED_TEXTS = 512;
const MAX_ENCODED_TEXT_LENGTH = 512;

/** A string as JSON text, well-formed first. */
function text(value: string): string {
  if (value.length > MAX_ENCODED_TEXT_LENGTH) return JSON.stringify(wellFormed(value));
  let json = encodedTexts.get(value);
  if (json === undefined) {
    json = JSON.stringify(wellFormed(value));
    if (encodedTexts.size >= MAX_ENCODED_TEXTS) encodedTexts.clear();
    encodedTexts.set(value, json);
  }
  return json;
}

const HEX = /^[0-9a-f]*$/;
/** Trace and span ids: hex digits as generated need no escaping and never repeat (not worth keeping). */
const id = (value: string) => (HEX.test(value) ? `"${value}"` : text(value));
const textOrNull = (value: string | undefined) => (value === undefined ? 'null' : text(value));
/** A finite number as JSON (the columns are NOT NULL: a NaN would refuse the whole batch). */
const number = (value: number) => (Number.isFinite(value) ? String(value) : '0');

function labelsJson(labels: Readonly<Record<string, string>>): string {
  let json = '';
  for (const key in labels) {
    // Two keys that differ only in lone surrogates would collide once repaired: merged as an object does.
    if (!key.isWellFormed()) return JSON.stringify(Object.fromEntries(Object.entries(labels).map(([name, value]) => [wellFormed(name), wellFormed(value)])));
    json += `${json === '' ? '' : ','}${text(key)}:${text(labels[key]!)}`;
  }
  return `{${json}}`;
}

/**
 * A row as the JSON object the INSERT below reads, written as text directly (no object per
 * row to build, stringify and collect: this runs for every query). Timestamps travel as
 * epoch microseconds, labels as a JSON object cast to the map type.
 */
export function rowJson(row: TaskRow): string {
  return `{"trace_id":${id(row.traceId)},"span_id":${id(row.spanId)},"parent_span_id":${row.parentSpanId === undefined ? 'null' : id(row.parentSpanId)},`
    + `"task":${text(row.task)},"input":${text(row.input)},"captured_output":${textOrNull(row.capturedOutput)},`
    + `"start_us":${number(row.startTime.getTime() * 1000)},"end_us":${number(row.endTime.getTime() * 1000)},`
    + `"execution_duration_ms":${number(row.executionDurationMs)},"error_message":${textOrNull(row.errorMessage)},`
    + `"labels":${labelsJson(row.labels)}}`;
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
