import type { DatasetConfig } from '../../manifest/types.js';
import { quoteIdentifier } from '../sql-text.js';

/**
 * The SQL of loads, refreshes and writes of an accelerated dataset, as text. Everything here
 * is pure (no engine): the registry runs the statements, each list in one transaction.
 */

/** What a conflicting row (same primary key) does: replace the stored row, or be dropped. */
export type ConflictAction = 'upsert' | 'drop';

/** The key rules of an accelerated dataset: `acceleration.primary_key` / `on_conflict`. */
export interface KeyRules {
  /** Primary-key columns; empty when the dataset has none. */
  readonly primaryKey: readonly string[];
  /** Undefined: a conflicting row fails the statement (the constraint's error). */
  readonly onConflict: ConflictAction | undefined;
}

export function keyRules(config: DatasetConfig): KeyRules {
  const key = config.acceleration?.primary_key;
  const primaryKey = key === undefined ? [] : typeof key === 'string' ? [key] : [...key];
  const actions = Object.values(config.acceleration?.on_conflict ?? {});
  return { primaryKey, onConflict: actions[0] as ConflictAction | undefined };
}

/** `INSERT`, `INSERT OR REPLACE` or `INSERT OR IGNORE`, by the dataset's conflict rule. */
export function insertVerb(rules: KeyRules): string {
  if (rules.primaryKey.length === 0 || rules.onConflict === undefined) return 'INSERT';
  return rules.onConflict === 'upsert' ? 'INSERT OR REPLACE' : 'INSERT OR IGNORE';
}

/**
 * The rows a load reads: the source's table expression, or `refresh_sql` evaluated against it.
 * `refresh_sql` names the dataset (`SELECT * FROM orders WHERE region = 'EU'`): the source is
 * bound to that name in a CTE, so it shadows the dataset's own view or table. Wrapping it as a
 * subquery means only a query is accepted (a `DELETE` or a second statement fails to parse).
 */
export function sourceSelect(datasetName: string, tableExpression: string, refreshSql: string | undefined, windowCondition?: string): string {
  const where = windowCondition === undefined ? '' : ` WHERE ${windowCondition}`;
  if (refreshSql === undefined || refreshSql.trim() === '') return `SELECT * FROM ${tableExpression}${where}`;
  const cteName = quoteIdentifier(datasetName.split('.').pop()!);
  const query = refreshSql.trim().replace(/;\s*$/, '');
  return `WITH ${cteName} AS (SELECT * FROM ${tableExpression}${where}) SELECT * FROM (${query}) AS refresh_rows`;
}

/**
 * `refresh_data_window` (Spice): only the source rows whose `time_column` falls within the
 * window before `now` are loaded and refreshed; undefined without a window.
 */
export function dataWindowCondition(config: DatasetConfig, now: Date): string | undefined {
  const window = config.acceleration?.refresh_data_window;
  if (window === undefined || config.time_column === undefined) return undefined;
  return `${timeValue(config.time_column, config.time_format)} >= TIMESTAMPTZ '${new Date(now.getTime() - window).toISOString()}'`;
}

/**
 * Statements that make `table` hold exactly `select`'s rows, for use inside one transaction.
 * With a primary key the table is created empty with the key as a constraint (so writes and
 * appends can upsert), then filled with one row per key. With `orderBy` the rows are stored
 * in that order (DuckDB keeps insertion order), so its zone maps let filters on those
 * expressions skip whole row groups.
 */
export function replaceStatements(table: string, select: string, rules: KeyRules, options: { orReplace: boolean; orderBy?: string | undefined }): string[] {
  const create = options.orReplace ? 'CREATE OR REPLACE TABLE' : 'CREATE TABLE';
  const ordered = (rows: string) => (options.orderBy ? `SELECT * FROM (${rows}) AS ordered_rows ORDER BY ${options.orderBy}` : rows);
  if (rules.primaryKey.length === 0) return [`${create} ${table} AS ${ordered(select)}`];
  const key = rules.primaryKey.map(quoteIdentifier).join(', ');
  return [
    `${create} ${table} AS SELECT * FROM (${select}) AS source_rows LIMIT 0`,
    `ALTER TABLE ${table} ADD PRIMARY KEY (${key})`,
    `INSERT INTO ${table} BY NAME ${ordered(`SELECT DISTINCT ON (${key}) * FROM (${select}) AS source_rows`)}`,
  ];
}

/** `time_column` as a timestamp, by `time_format` (so numbers and ISO-8601 text compare in time order). */
export function timeValue(column: string, format: DatasetConfig['time_format']): string {
  const quoted = quoteIdentifier(column);
  switch (format) {
    case 'unix_seconds':
      return `to_timestamp(${quoted})`;
    case 'unix_millis':
      return `epoch_ms(CAST(${quoted} AS BIGINT))`;
    case 'ISO8601':
      return `CAST(${quoted} AS TIMESTAMPTZ)`;
    default:
      // timestamp, timestamptz, date: the column compares in time order as it is.
      return quoted;
  }
}

/**
 * An append refresh: adds the source rows newer than the newest row already loaded (by
 * `time_column`), or, without a time column, every source row merged by primary key.
 * One statement, so it commits or not as a whole.
 */
export function appendStatement(options: {
  table: string;
  select: string;
  rules: KeyRules;
  timeColumn: string | undefined;
  timeFormat: DatasetConfig['time_format'];
}): string {
  const { table, select, rules } = options;
  let rows = `SELECT * FROM (${select}) AS source_rows`;
  if (options.timeColumn !== undefined) {
    const time = timeValue(options.timeColumn, options.timeFormat);
    // An empty table (no newest row yet) takes every source row.
    const newest = `(SELECT max(${time}) FROM ${table})`;
    rows += ` WHERE ${newest} IS NULL OR ${time} > ${newest}`;
  }
  if (rules.primaryKey.length > 0) {
    rows = `SELECT DISTINCT ON (${rules.primaryKey.map(quoteIdentifier).join(', ')}) * FROM (${rows}) AS new_rows`;
  }
  return `${insertVerb(rules)} INTO ${table} BY NAME ${rows}`;
}

/** Moves staged rows (a Flight ingest) into a keyed dataset by its conflict rule, one row per key. */
export function mergeStatement(table: string, staging: string, rules: KeyRules): string {
  const key = rules.primaryKey.map(quoteIdentifier).join(', ');
  return `${insertVerb(rules)} INTO ${table} BY NAME SELECT DISTINCT ON (${key}) * FROM ${staging}`;
}
