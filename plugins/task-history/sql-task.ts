import { randomFillSync } from 'node:crypto';
import type { EngineApi } from '../../core/engine/engine-api.js';
import type { DatasetLoadEvent, QueryOutcome, QueryRequest } from '../../core/pipeline/types.js';
import type { RowColumns } from './row-columns.js';
import type { TaskRow } from './table.js';

/** SQL longer than this is cut in `input`: one huge INSERT ... VALUES must not pin megabytes for hours. */
export const MAX_INPUT_CHARS = 64 * 1024;
export const TRUNCATED_MARKER = '...[truncated]';

/** Random bytes drawn 4 KiB at a time: one `randomBytes` call per id was a visible cost on the cache-hit path. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex(bytes: number): string {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return hex;
}

/** A span id: 8 random bytes as 16 hex digits (W3C trace-context size). */
export function newSpanId(): string {
  return randomHex(8);
}

/** A trace id: 16 random bytes as 32 hex digits. */
export function newTraceId(): string {
  return randomHex(16);
}

export function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, limit) + TRUNCATED_MARKER;
}

/** Milliseconds as label text: three decimals at most, no exponent. */
function millis(value: number): string {
  return String(Math.round(value * 1000) / 1000);
}

/**
 * Writes the `sql_query` row of one finished query straight into the columns. The trace id
 * is the query id (a UUID, written without its dashes), so a row can be matched with the
 * runtime's logs of the same query. Labels as Spice names them, plus `statement_type`,
 * `principal` and `results_cache_status`.
 */
export function writeSqlQueryRow(columns: RowColumns, query: QueryRequest, outcome: QueryOutcome, capturedOutput: string | undefined, engine: Pick<EngineApi, 'dataset'>): void {
  const failed = outcome.status !== 'ok';
  columns.startRow({
    traceId: query.id,
    spanId: newSpanId(),
    parentSpanId: undefined,
    task: 'sql_query',
    input: truncate(query.sql, MAX_INPUT_CHARS),
    capturedOutput,
    startTime: query.startTime,
    endTime: outcome.endTime,
    executionDurationMs: outcome.durationMs,
    errorMessage: failed ? (outcome.error?.message ?? 'the query was cancelled') : undefined,
  }, true);
  const datasets = query.datasets;
  columns.label('protocol', query.protocol);
  columns.label('datasets', datasets.length === 1 ? datasets[0]! : datasets.join(','));
  columns.label('rows_produced', String(outcome.rows));
  columns.label('query_execution_duration_ms', millis(outcome.executionMs));
  columns.label('results_cache_hit', outcome.cacheStatus === 'HIT' || outcome.cacheStatus === 'STALE' ? 'true' : 'false');
  columns.label('statement_type', query.statementType);
  columns.label('principal', query.principal.id);
  if (outcome.cacheStatus !== undefined) columns.label('results_cache_status', outcome.cacheStatus);
  if (datasets.some((name) => engine.dataset(name)?.accelerated)) columns.label('accelerated', 'true');
  if (query.protocol === 'internal') columns.label('runtime_query', 'true');
  if (failed) columns.label('error_code', outcome.error?.code ?? (outcome.status === 'cancelled' ? 'QUERY_CANCELLED' : 'QUERY_FAILED'));
  columns.endRow();
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
