import { DuckDBInstance } from '@duckdb/node-api';
import { CREATE_TASK_HISTORY_SQL, insertStatement, type TaskRow } from '../../plugins/task-history/table.ts';
import { bindParameters } from '../../core/engine/parameters.ts';
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run('CREATE SCHEMA runtime'); await c.run(CREATE_TASK_HISTORY_SQL);
const rows: TaskRow[] = Array.from({length: 500}, (_, i) => ({ traceId: 'abcdef0123456789abcdef0123456789', spanId: '0123456789abcdef', parentSpanId: undefined, task: 'sql_query', input: 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status', capturedOutput: undefined, startTime: new Date(), endTime: new Date(), executionDurationMs: 0.123, errorMessage: undefined, labels: { protocol: 'http', datasets: 'orders', rows_produced: '6', results_cache_hit: 'true', statement_type: 'SELECT', principal: 'anonymous', results_cache_status: 'HIT', accelerated: 'true' } }));
function cpu() { const u = process.cpuUsage(); return (u.user + u.system) / 1000; }
for (let round = 0; round < 3; round++) {
  let t0 = performance.now(), c0 = cpu();
  for (let k = 0; k < 10; k++) { const { sql, parameters } = insertStatement(rows); const p = await c.prepare(sql); bindParameters(p, parameters); await p.run(); p.destroySync(); }
  console.log('params: wall ms/500 rows', ((performance.now() - t0) / 10).toFixed(1), 'cpu', ((cpu() - c0) / 10).toFixed(1));
  t0 = performance.now(); c0 = cpu();
  for (let k = 0; k < 10; k++) {
    const json = JSON.stringify(rows.map((r) => ({ trace_id: r.traceId, span_id: r.spanId, parent_span_id: r.parentSpanId ?? null, task: r.task, input: r.input, captured_output: r.capturedOutput ?? null, start_us: r.startTime.getTime() * 1000, end_us: r.endTime.getTime() * 1000, ms: r.executionDurationMs, error_message: r.errorMessage ?? null, labels: r.labels })));
    const p = await c.prepare(`INSERT INTO runtime.task_history SELECT r.trace_id, r.span_id, r.parent_span_id, r.task, r.input, r.captured_output, make_timestamp(r.start_us), make_timestamp(r.end_us), r.ms, r.error_message, CAST(r.labels AS MAP(VARCHAR, VARCHAR)) FROM (SELECT unnest(from_json($1::JSON, '[{"trace_id":"VARCHAR","span_id":"VARCHAR","parent_span_id":"VARCHAR","task":"VARCHAR","input":"VARCHAR","captured_output":"VARCHAR","start_us":"BIGINT","end_us":"BIGINT","ms":"DOUBLE","error_message":"VARCHAR","labels":"JSON"}]')) AS r)`);
    p.bindVarchar(1, json); await p.run(); p.destroySync();
  }
  console.log('json: wall ms/500 rows', ((performance.now() - t0) / 10).toFixed(1), 'cpu', ((cpu() - c0) / 10).toFixed(1));
}
console.log((await c.runAndReadAll('select count(*), any_value(labels), any_value(start_time) from runtime.task_history')).getRowsJS());
