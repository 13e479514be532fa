import { STAGE } from '../../../core/hooks/stages.js';
import type { PluginRuntime } from '../../../core/plugins/types.js';
import { memoise } from '../../../core/metrics/memoise.js';

const PLUGIN = 'telemetry';
/** request.state key: set when query.before counted the query as active, so query.after can uncount it. */
const COUNTED_ACTIVE = 'telemetry:active';

/** Bucket bounds for row counts: one decade each, up to a million rows. */
export const ROW_BOUNDARIES: readonly number[] = [0, 1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/**
 * The query family, recorded from the pipeline hooks so HTTP, Flight, MCP and internal
 * queries are measured the same way. Every series carries `protocol`.
 */
export function recordQueryMetrics(runtime: PluginRuntime): void {
  const metrics = runtime.metrics;
  const duration = metrics.histogram('query_duration_ms', {
    description: 'Time from receiving a query to sending its last batch (planning, execution and streaming), in milliseconds.',
    unit: 'ms',
  });
  const executionDuration = metrics.histogram('query_execution_duration_ms', {
    description: 'Time the engine spent executing a query, in milliseconds; 0 when the results cache answered.',
    unit: 'ms',
  });
  const executions = metrics.counter('query_executions', { description: 'Queries that finished (successfully, failed or cancelled), by protocol and datasets read.' });
  const failures = metrics.counter('query_failures', { description: 'Queries that failed, by protocol and error code.' });
  const active = metrics.upDownCounter('query_active_count', { description: 'Queries running now (started and not yet fully sent), by protocol.' });
  const returnedRows = metrics.histogram('query_returned_rows', { description: 'Rows returned by each successful query.', boundaries: ROW_BOUNDARIES });

  // Every query records into these: the series of each protocol are resolved once, and its
  // executions by dataset list (keys the query already holds: no string is built per query).
  const byProtocol = memoise((protocol: string) => {
    const attributes = { protocol };
    return {
      active: active.bind(attributes),
      duration: duration.bind(attributes),
      executionDuration: executionDuration.bind(attributes),
      returnedRows: returnedRows.bind(attributes),
      executions: memoise((datasets: string) => executions.bind({ protocol, datasets })),
    };
  });

  // First, so a query refused by a later query.before tap is still counted and then uncounted.
  runtime.hooks.query.before.tap({ name: PLUGIN, stage: STAGE.OBSERVE_FIRST }, (query) => {
    query.state.set(COUNTED_ACTIVE, true);
    byProtocol(query.protocol).active.add(1);
  });

  runtime.hooks.query.after.tap({ name: PLUGIN, stage: STAGE.OBSERVE_LAST }, (query, outcome) => {
    const protocol = query.protocol;
    const series = byProtocol(protocol);
    if (query.state.get(COUNTED_ACTIVE) === true) series.active.add(-1);
    series.duration.record(outcome.durationMs);
    series.executionDuration.record(outcome.executionMs);
    const datasets = query.datasets.length <= 1 ? (query.datasets[0] ?? '') : [...query.datasets].sort().join(',');
    series.executions(datasets).add(1);
    if (outcome.status === 'error') failures.add(1, { protocol, err_code: outcome.error?.code ?? 'UNKNOWN' });
    if (outcome.status === 'ok') series.returnedRows.record(outcome.rows);
  });
}
