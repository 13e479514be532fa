import { QuarryError } from '../../errors/quarry-error.js';
import type { DatasetConfig } from '../../manifest/types.js';

export type RefreshMode = 'full' | 'append';

/** A refresh's overrides (the HTTP body / `quarry refresh --refresh-sql --refresh-mode`). */
export interface RefreshOverrides {
  readonly refreshSql?: string | undefined;
  readonly refreshMode?: RefreshMode | undefined;
  /**
   * SQL expressions a full load stores the rows in order of (not from the HTTP body: a cluster
   * executor orders its share by the partition key, so filters on the key skip row groups).
   */
  readonly orderBy?: string | undefined;
}

/** What one refresh does, after the overrides are applied to the dataset's acceleration block. */
export interface RefreshPlan {
  readonly mode: RefreshMode;
  readonly refreshSql: string | undefined;
  /** Applies to full loads; an append adds its rows after the others. */
  readonly orderBy: string | undefined;
}

export function refreshPlan(config: DatasetConfig, overrides: RefreshOverrides = {}): RefreshPlan {
  const mode = overrides.refreshMode ?? config.acceleration?.refresh_mode ?? 'full';
  const problem = appendProblem(config, mode);
  if (problem) throw new QuarryError('DATASET_REFRESH_INVALID', problem);
  return { mode, refreshSql: overrides.refreshSql ?? config.acceleration?.refresh_sql, orderBy: overrides.orderBy };
}

/**
 * Why an append refresh is not defined for this dataset: without a time column there is no
 * "newer than loaded", and without a primary key every refresh would duplicate every row.
 */
export function appendProblem(config: DatasetConfig, mode: RefreshMode): string | undefined {
  if (mode !== 'append') return undefined;
  if (config.time_column !== undefined || config.acceleration?.primary_key !== undefined) return undefined;
  return `dataset "${config.name}": refresh_mode append needs time_column (rows newer than the newest loaded are added) or acceleration.primary_key (source rows are merged by key)`;
}

/** Reads the optional JSON body of `POST /v1/datasets/{name}/acceleration/refresh`. */
export function parseRefreshOverrides(body: unknown): RefreshOverrides {
  if (body === undefined || body === null || body === '') return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new QuarryError('DATASET_REFRESH_INVALID', 'the refresh body must be a JSON object such as {"refresh_mode": "append", "refresh_sql": "SELECT * FROM orders WHERE ..."}');
  }
  const record = body as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => key !== 'refresh_sql' && key !== 'refresh_mode' && key !== 'refresh_jitter_max');
  if (unknown.length > 0) {
    throw new QuarryError('DATASET_REFRESH_INVALID', `unknown refresh field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; accepted: refresh_sql, refresh_mode`);
  }
  const { refresh_sql: refreshSql, refresh_mode: refreshMode } = record;
  if (refreshSql !== undefined && typeof refreshSql !== 'string') {
    throw new QuarryError('DATASET_REFRESH_INVALID', 'refresh_sql must be a string, e.g. "SELECT * FROM orders WHERE region = \'EU\'"');
  }
  if (refreshMode !== undefined && refreshMode !== 'full' && refreshMode !== 'append') {
    throw new QuarryError('DATASET_REFRESH_INVALID', `refresh_mode ${JSON.stringify(refreshMode)} is not accepted; use full or append`);
  }
  return { refreshSql, refreshMode };
}
