import { quoteIdentifier, quoteQualifiedName } from '../../../core/engine/sql-text.js';
import { STAGE } from '../../../core/hooks/stages.js';
import type { DatasetConfig } from '../../../core/manifest/types.js';
import type { PluginRuntime } from '../../../core/plugins/types.js';

export const MAX_BEFORE = 'dataset_acceleration_max_timestamp_before_refresh_ms';
export const MAX_AFTER = 'dataset_acceleration_max_timestamp_after_refresh_ms';
export const REFRESH_LAG = 'dataset_acceleration_refresh_lag_ms';
export const INGESTION_LAG = 'dataset_acceleration_ingestion_lag_ms';

interface Freshness {
  mode: string;
  before?: number;
  after?: number;
  refreshLag?: number;
  ingestionLag?: number;
}

/** A `time_column` value as epoch milliseconds, read per the dataset's `time_format`. */
export function epochMilliseconds(value: unknown, timeFormat: DatasetConfig['time_format']): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number' || typeof value === 'bigint') {
    const number = Number(value);
    // Spice reads bare numbers as unix seconds unless told they are milliseconds.
    return timeFormat === 'unix_millis' ? number : number * 1000;
  }
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return undefined;
}

/**
 * The four default-off freshness gauges of an accelerated dataset with a `time_column`:
 * after each load, refresh or write, `SELECT max(time_column)` gives the new maximum; the
 * previous maximum is the "before" value. Refresh lag = after − before; ingestion lag =
 * now − after, both taken when the data changed. Only runs when one of them is enabled.
 */
export function recordAccelerationMetrics(runtime: PluginRuntime, isEnabled: (name: string) => boolean): ((dataset: string) => void) | undefined {
  if (![MAX_BEFORE, MAX_AFTER, REFRESH_LAG, INGESTION_LAG].some(isEnabled)) return undefined;
  const freshness = new Map<string, Freshness>();
  const metrics = runtime.metrics;
  const gauge = (name: string, description: string, pick: (entry: Freshness) => number | undefined) =>
    metrics.gauge(name, { description, unit: 'ms' }, () =>
      [...freshness].flatMap(([dataset, entry]) => {
        const value = pick(entry);
        return value === undefined ? [] : [{ value, attributes: { dataset, mode: entry.mode } }];
      }),
    );
  gauge(MAX_BEFORE, "Largest time_column value of the dataset before its last refresh, as epoch milliseconds.", (entry) => entry.before);
  gauge(MAX_AFTER, "Largest time_column value of the dataset after its last refresh, as epoch milliseconds.", (entry) => entry.after);
  gauge(REFRESH_LAG, 'Largest time_column value after the last refresh minus the one before it, in milliseconds.', (entry) => entry.refreshLag);
  gauge(INGESTION_LAG, 'Wall-clock time at the last refresh minus the largest time_column value after it, in milliseconds.', (entry) => entry.ingestionLag);

  const running = new Map<string, Promise<void>>();
  const measure = async (config: DatasetConfig) => {
    const rows = await runtime.engine.runInternal(`SELECT max(${quoteIdentifier(config.time_column!)}) AS value FROM ${quoteQualifiedName(config.name)}`);
    const after = epochMilliseconds(rows[0]?.['value'], config.time_format);
    const previous = freshness.get(config.name);
    const entry: Freshness = { mode: config.acceleration?.refresh_mode ?? 'full', before: previous?.after, after };
    if (after !== undefined) {
      entry.ingestionLag = Date.now() - after;
      if (entry.before !== undefined) entry.refreshLag = after - entry.before;
    }
    freshness.set(config.name, entry);
  };
  const onChanged = (name: string) => {
    const config = runtime.manifest.datasets.find((dataset) => dataset.name.toLowerCase() === name.toLowerCase());
    if (!config?.time_column || config.acceleration?.enabled !== true) return;
    // One measurement at a time per dataset, in order, so "before" is always the previous "after".
    const next = (running.get(config.name) ?? Promise.resolve())
      .then(() => measure(config))
      .catch((error: unknown) => runtime.log.warn('could not read the time_column maximum for acceleration metrics', { dataset: config.name, error: (error as Error).message }));
    running.set(config.name, next);
  };
  runtime.hooks.cache.invalidate.tap({ name: 'telemetry', stage: STAGE.OBSERVE_LAST }, (invalidation) => {
    if (invalidation.reason === 'manual') return;
    for (const dataset of invalidation.datasets) onChanged(dataset);
  });
  return onChanged;
}
