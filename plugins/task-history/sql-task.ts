import type { EngineApi } from '../../core/engine/engine-api.js';
import type { DatasetLoadEvent, QueryOutcome, QueryRequest } from '../../core/pipeline/types.js';
import { newSpanId, newTraceId } from './hex-ids.js';
import type { RowColumns } from './row-columns.js';
import type { TaskRow } from './table.js';

/** SQL longer than this is cut in `input`: one huge INSERT ... VALUES must not pin megabytes for hours. */
export const MAX_INPUT_CHARS = 64 * 1024;
export const TRUNCATED_MARKER = '...[truncated]';

export function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, limit) + TRUNCATED_MARKER;
}

/**
 * Writes the `sql_query` row of one finished query straight into the columns. The trace id
 * is the query id (a UUID, kept as its 32 hex digits), so a row can be matched with the
 * runtime's logs of the same query. Labels as Spice names them, plus `statement_type`,
 * `principal` and `results_cache_status` (spelled out by the engine: `task-rows-sql.ts`).
 */
export function writeSqlQueryRow(columns: RowColumns, query: QueryRequest, outcome: QueryOutcome, capturedOutput: string | undefined, engine: Pick<EngineApi, 'dataset'>): void {
  const failed = outcome.status !== 'ok';
  const datasets = query.datasets;
  columns.appendQuery({
    traceId: query.id,
    input: truncate(query.sql, MAX_INPUT_CHARS),
    capturedOutput,
    startTime: query.startTime,
    endTime: outcome.endTime,
    executionDurationMs: outcome.durationMs,
    errorMessage: failed ? (outcome.error?.message ?? 'the query was cancelled') : undefined,
  }, {
    protocol: query.protocol,
    datasets: datasets.length === 1 ? datasets[0]! : datasets.join(','),
    statementType: query.statementType,
    principal: query.principal.id,
    cacheStatus: outcome.cacheStatus,
    accelerated: datasets.some((name) => engine.dataset(name)?.accelerated === true),
    errorCode: failed ? (outcome.error?.code ?? (outcome.status === 'cancelled' ? 'QUERY_CANCELLED' : 'QUERY_FAILED')) : undefined,
    rowsProduced: outcome.rows,
    executionMs: outcome.executionMs,
  });
}

/**
 * The row of a dataset refresh, from the `cache.invalidate` signal that follows it. That
 * signal carries no start time, so start and end are both the completion time and the
 * duration is 0 until the engine reports refreshes through a hook of their own.
 */
export function refreshRow(event: DatasetLoadEvent): TaskRow {
  return {
    traceId: newTraceId(),
    spanId: newSpanId(),
    parentSpanId: undefined,
    task: 'accelerated_refresh',
    input: event.dataset,
    capturedOutput: undefined,
    startTime: event.startTime,
    endTime: event.endTime,
    executionDurationMs: event.durationMs,
    errorMessage: event.error,
    labels: { dataset: event.dataset, kind: event.kind === 'load' ? 'initial_load' : 'refresh', ...(event.error ? { error_code: 'DATASET_LOAD_FAILED' } : {}) },
  };
}
