import type { DatasetConfig } from '../../manifest/types.js';
import { timeValue } from './refresh-statements.js';

/**
 * Retention of an accelerated dataset, as Spice configures it: every
 * `retention_check_interval`, rows older than `retention_period` (by `time_column`) are
 * deleted from the accelerated table, and so are the rows `retention_sql`
 * (`DELETE FROM <dataset> WHERE ...`) selects. Pure: the registry runs the statements.
 */

/** `retention_check_interval` unless set, as in Spice. */
export const DEFAULT_RETENTION_CHECK_INTERVAL_MS = 60 * 60 * 1000;

/** The condition of a `retention_sql` that deletes from the dataset, or undefined when it is not such a statement. */
export function retentionCondition(datasetName: string, retentionSql: string): string | undefined {
  const escaped = datasetName.split('.').map((part) => `(?:"${part}"|${part})`).join('\\.');
  const match = new RegExp(`^\\s*DELETE\\s+FROM\\s+${escaped}\\s+WHERE\\s+([\\s\\S]+?)\\s*;?\\s*$`, 'i').exec(retentionSql);
  return match?.[1];
}

/** Why the retention keys cannot work, or undefined (manifest rules; each message names the dataset). */
export function retentionProblem(config: Pick<DatasetConfig, 'name' | 'time_column' | 'acceleration'>): { key: string; message: string } | undefined {
  const acceleration = config.acceleration;
  if (!acceleration) return undefined;
  const { retention_check_enabled: enabled, retention_period: period, retention_sql: sql } = acceleration;
  if (sql !== undefined && retentionCondition(config.name, sql) === undefined) {
    return { key: 'retention_sql', message: `dataset "${config.name}": retention_sql must be DELETE FROM ${config.name} WHERE <condition>` };
  }
  if (period !== undefined && config.time_column === undefined) {
    return { key: 'retention_period', message: `dataset "${config.name}": retention_period needs time_column (rows older than the period by that column are deleted)` };
  }
  if (enabled === true && period === undefined && sql === undefined) {
    return { key: 'retention_check_enabled', message: `dataset "${config.name}": retention_check_enabled needs retention_period (with time_column) or retention_sql` };
  }
  return undefined;
}

/** The DELETE statements one retention check runs on `table` (quoted SQL); none when retention is off. */
export function retentionStatements(config: DatasetConfig, table: string, now: Date): string[] {
  const acceleration = config.acceleration;
  if (acceleration?.retention_check_enabled !== true) return [];
  const statements: string[] = [];
  if (acceleration.retention_period !== undefined && config.time_column !== undefined) {
    const cutoff = new Date(now.getTime() - acceleration.retention_period).toISOString();
    statements.push(`DELETE FROM ${table} WHERE ${timeValue(config.time_column, config.time_format)} < TIMESTAMPTZ '${cutoff}'`);
  }
  if (acceleration.retention_sql !== undefined) {
    statements.push(`DELETE FROM ${table} WHERE ${retentionCondition(config.name, acceleration.retention_sql)!}`);
  }
  return statements;
}
