import { columnDefinitions } from '../../core/engine/fetch/duckdb-column-types.js';
import { EXTRAS_SCHEMA, ROWS_SCHEMA, SHAPES_SCHEMA } from './stored-schemas.js';
import { EXTRAS_TABLE, ROWS_TABLE, SHAPES_TABLE, TASK_HISTORY_VIEW_SQL, UNUSED_SHAPES_SQL } from './view-sql.js';

export { STORED_TABLE_REFS } from './view-sql.js';

/** The table as Spice names it (a view here); the `runtime` schema holds the runtime's own tables. */
export const TASK_HISTORY_TABLE = 'runtime.task_history';

/** The stored tables, their columns exactly the writer's (it appends them as they are), and the view. */
export const CREATE_TASK_HISTORY_STATEMENTS = [
  'CREATE SCHEMA IF NOT EXISTS runtime',
  `CREATE TABLE IF NOT EXISTS ${ROWS_TABLE} (${columnDefinitions(ROWS_SCHEMA, ROWS_TABLE)})`,
  `CREATE TABLE IF NOT EXISTS ${SHAPES_TABLE} (${columnDefinitions(SHAPES_SCHEMA, SHAPES_TABLE)})`,
  `CREATE TABLE IF NOT EXISTS ${EXTRAS_TABLE} (${columnDefinitions(EXTRAS_SCHEMA, EXTRAS_TABLE)})`,
  TASK_HISTORY_VIEW_SQL,
] as const;

export const DROP_TASK_HISTORY_STATEMENTS = [
  `DROP VIEW IF EXISTS ${TASK_HISTORY_TABLE}`,
  ...[ROWS_TABLE, SHAPES_TABLE, EXTRAS_TABLE].map((table) => `DROP TABLE IF EXISTS ${table}`),
] as const;

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

/**
 * Removes rows that started before `cutoff` (epoch microseconds as a parameter keeps the clock
 * the writer's) and their extras, then the shapes below `shapeBoundary` no row names any more.
 */
export function retentionStatements(cutoff: Date, shapeBoundary: number): Array<{ sql: string; parameters: unknown[] }> {
  const micros = cutoff.getTime() * 1000;
  return [
    { sql: `DELETE FROM ${ROWS_TABLE} WHERE start_time < make_timestamp($1)`, parameters: [micros] },
    { sql: `DELETE FROM ${EXTRAS_TABLE} WHERE start_time < make_timestamp($1)`, parameters: [micros] },
    { sql: UNUSED_SHAPES_SQL, parameters: [shapeBoundary] },
  ];
}
