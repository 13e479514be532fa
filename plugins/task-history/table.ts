/** The table, as Spice names it; the `runtime` schema holds the runtime's own tables. */
export const TASK_HISTORY_TABLE = 'runtime.task_history';
/** The same table as the engine's `appendToTable` names it. */
export const TASK_HISTORY_TABLE_REF = { schema: 'runtime', name: 'task_history' } as const;

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

/** One row of the table, its labels aside. */
export interface RowHead {
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
}

/** One row of the table. */
export interface TaskRow extends RowHead {
  readonly labels: Readonly<Record<string, string>>;
}

/** Removes rows that started before `cutoff`; epoch microseconds as a parameter keeps the clock the writer's. */
export function retentionStatement(cutoff: Date): { sql: string; parameters: unknown[] } {
  return { sql: `DELETE FROM ${TASK_HISTORY_TABLE} WHERE start_time < make_timestamp($1)`, parameters: [cutoff.getTime() * 1000] };
}
