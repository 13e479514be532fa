import { DuckDBInstance } from '@duckdb/node-api';
import { CREATE_TASK_HISTORY_SQL, insertStatement } from '../../plugins/task-history/table.ts';
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
await c.run('CREATE SCHEMA runtime'); await c.run(CREATE_TASK_HISTORY_SQL);
const row = (input: string) => ({ traceId: 't', spanId: 's', parentSpanId: undefined, task: 'sql_query', input, capturedOutput: undefined, startTime: new Date(), endTime: new Date(), executionDurationMs: 1, errorMessage: 'x"y\n', labels: { a: 'é"\\' } });
const { sql, parameters } = insertStatement([row('SELECT \'\ud800\' -- lone'), row('SELECT "ü" 🎉')]);
const p = await c.prepare(sql); p.bindVarchar(1, parameters[0] as string); await p.run();
console.log((await c.runAndReadAll('select input, error_message, labels from runtime.task_history')).getRowsJson());
