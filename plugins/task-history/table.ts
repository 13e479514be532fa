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

/** Parameters per row in the INSERT below. */
const PARAMETERS_PER_ROW = 11;

/**
 * One multi-row INSERT for a batch of rows, every value a parameter (user SQL text and error
 * messages go in as values, never as SQL). Timestamps travel as epoch microseconds; labels as
 * JSON text cast to the map type.
 */
export function insertStatement(rows: readonly TaskRow[]): { sql: string; parameters: unknown[] } {
  const tuples: string[] = [];
  const parameters: unknown[] = [];
  rows.forEach((row, index) => {
    const at = (offset: number) => `$${index * PARAMETERS_PER_ROW + offset}`;
    tuples.push(
      `(${at(1)}, ${at(2)}, ${at(3)}, ${at(4)}, ${at(5)}, ${at(6)}, make_timestamp(${at(7)}), make_timestamp(${at(8)}), ${at(9)}, ${at(10)}, CAST(CAST(${at(11)} AS JSON) AS MAP(VARCHAR, VARCHAR)))`,
    );
    parameters.push(
      row.traceId,
      row.spanId,
      row.parentSpanId ?? null,
      row.task,
      row.input,
      row.capturedOutput ?? null,
      row.startTime.getTime() * 1000,
      row.endTime.getTime() * 1000,
      row.executionDurationMs,
      row.errorMessage ?? null,
      JSON.stringify(row.labels),
    );
  });
  return { sql: `INSERT INTO ${TASK_HISTORY_TABLE} VALUES ${tuples.join(', ')}`, parameters };
}

/** Removes rows that started before `cutoff`; epoch microseconds as a parameter keeps the clock the writer's. */
export function retentionStatement(cutoff: Date): { sql: string; parameters: unknown[] } {
  return { sql: `DELETE FROM ${TASK_HISTORY_TABLE} WHERE start_time < make_timestamp($1)`, parameters: [cutoff.getTime() * 1000] };
}

/** Rough size of a row in memory, to bound the write buffer in bytes as well as rows. */
export function approximateSize(row: TaskRow): number {
  let size = 256 + row.input.length + (row.capturedOutput?.length ?? 0) + (row.errorMessage?.length ?? 0);
  for (const [key, value] of Object.entries(row.labels)) size += key.length + value.length;
  return size * 2;
}
