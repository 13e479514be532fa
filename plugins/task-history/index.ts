import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { batchesInMemory } from '../../core/engine/arrow/batches-in-memory.js';
import { captureFirstRows, capturedRows } from './output-capture.js';
import { PlanCapture } from './plan-capture.js';
import { registerTaskHistory, type TaskInput } from './recorder.js';
import { taskHistorySchema, type TaskHistoryConfig } from './schema.js';
import { newSpanId, newTraceId } from './hex-ids.js';
import { refreshRow, writeSqlQueryRow, truncate } from './sql-task.js';
import { StoredIds } from './stored-ids.js';
import { CREATE_TASK_HISTORY_STATEMENTS, DROP_TASK_HISTORY_STATEMENTS, retentionStatements, STORED_TABLE_REFS, type TaskRow } from './table.js';
import { TaskWriter } from './writer.js';

export const TASK_HISTORY_PLUGIN_NAME = 'task-history';

/** `captured_context: truncated` keeps this many characters of AI, search and tool payloads. */
const CONTEXT_LIMIT = 4096;
/** Shutdown waits this long at most for EXPLAINs still running before the last write. */
const PLAN_WAIT_ON_STOP_MS = 2_000;

/**
 * The `runtime.task_history` table: one row per SQL query (any protocol), per dataset
 * refresh, and per task other plugins report through `taskHistory(hooks)`. Rows are written
 * in batches; old rows are deleted every retention_check_interval.
 */
export function createTaskHistoryPlugin(): QuarryPlugin {
  return {
    name: TASK_HISTORY_PLUGIN_NAME,
    manifest: [{ path: 'runtime.task_history', schema: taskHistorySchema }],
    apply(runtime) {
      const config = runtime.section<TaskHistoryConfig>('runtime.task_history')!;
      const log = runtime.log;
      if (!config.enabled) {
        runtime.hooks.startup.tapPromise(TASK_HISTORY_PLUGIN_NAME, async () => {
          // The engine is in memory, so there is nothing to drop after a restart; DROP keeps it true for file-backed engines.
          for (const statement of DROP_TASK_HISTORY_STATEMENTS) await runtime.engine.runInternal(statement);
          log.info('task history is off (runtime.task_history.enabled: false): runtime.task_history does not exist');
        });
        return;
      }

      const dropped = runtime.metrics.counter('task_history_dropped_rows', { description: 'Task history rows not written: the write buffer was full or an INSERT failed.' });
      dropped.add(0);
      const plansSkipped = runtime.metrics.counter('task_history_plans_skipped', { description: 'Query plans not captured because too many EXPLAINs were already waiting.' });
      const ids = new StoredIds();
      const writer = new TaskWriter({
        // Copied into the engine as they are (no SQL to parse, no JSON to read, nothing looked up),
        // a row's shape and extras before it: a stored row always finds them.
        insert: async ({ shapes, extras, rows }) => {
          const signal = new AbortController().signal;
          for (const [table, batch] of [[STORED_TABLE_REFS.shapes, shapes], [STORED_TABLE_REFS.extras, extras], [STORED_TABLE_REFS.rows, rows]] as const) {
            if (batch.numRows > 0) await runtime.engine.appendToTable(table, batch.schema, batchesInMemory([batch]), signal, { exactColumns: true });
          }
        },
        ids,
        onDrop: (count) => dropped.add(count),
        log,
      });
      const plans = new PlanCapture({
        mode: config.captured_plan,
        minSqlDurationMs: config.min_sql_duration,
        minPlanDurationMs: config.min_plan_duration,
        run: (sql, parameters) => runtime.engine.runInternal(sql, parameters),
        onSkip: () => plansSkipped.add(1),
      });
      const enforceRetention = async () => {
        // Shapes forgotten now get no more rows; once the rows already naming them are written,
        // the ones no row names are deleted after the old rows.
        const boundary = ids.forget();
        await writer.flush();
        for (const { sql, parameters } of retentionStatements(new Date(Date.now() - config.retention_period), boundary)) await runtime.engine.runInternal(sql, parameters);
      };
      const context = (text: string) => (config.captured_context === 'full' ? text : config.captured_context === 'redacted' ? '[redacted]' : truncate(text, CONTEXT_LIMIT));
      const record = (task: TaskInput): string | undefined => {
        const spanId = newSpanId();
        const row: TaskRow = {
          traceId: task.traceId ?? newTraceId(),
          spanId,
          parentSpanId: task.parentSpanId,
          task: task.task,
          input: context(task.input),
          capturedOutput: config.captured_output === 'none' || task.capturedOutput === undefined ? undefined : context(task.capturedOutput),
          startTime: task.startTime,
          endTime: task.endTime,
          executionDurationMs: task.endTime.getTime() - task.startTime.getTime(),
          errorMessage: task.errorMessage,
          labels: task.labels ?? {},
        };
        return writer.add(row) ? spanId : undefined;
      };
      /** Rows waiting for their plan: queued only once the EXPLAIN is done. */
      const awaitingPlans = new Set<Promise<void>>();
      const flush = async () => {
        await Promise.all(awaitingPlans);
        await writer.flush();
      };
      registerTaskHistory(runtime.hooks, { record, flush, enforceRetention });

      let retentionTimer: NodeJS.Timeout | undefined;
      runtime.hooks.startup.tapPromise(TASK_HISTORY_PLUGIN_NAME, async () => {
        for (const statement of CREATE_TASK_HISTORY_STATEMENTS) await runtime.engine.runInternal(statement);
        // Callers read the view, which shows each its own rows (an admin key: all); never the stored tables.
        runtime.engine.sandbox.hideTables(Object.values(STORED_TABLE_REFS).map((table) => table.name));
        runtime.engine.sandbox.scopeByCaller(['task_history']);
        retentionTimer = setInterval(() => {
          enforceRetention().catch((error: unknown) => log.warn('task history retention check failed', { error: (error as Error).message }));
        }, config.retention_check_interval);
        retentionTimer.unref();
      });

      if (config.captured_output === 'truncated') {
        // Results the engine produced pass here; answers from the results cache do not (see docs/plugins/task-history.md).
        // query.result sees every answer, cache hits included.
        runtime.hooks.query.result.tap({ name: TASK_HISTORY_PLUGIN_NAME, stage: STAGE.OBSERVE_LAST }, (result, query) => captureFirstRows(result, query));
      }

      runtime.hooks.query.after.tap({ name: TASK_HISTORY_PLUGIN_NAME, stage: STAGE.OBSERVE_LAST }, (query, outcome) => {
        const output = config.captured_output === 'truncated' ? capturedRows(query) : undefined;
        if (!plans.wants(query, outcome)) {
          writer.addWith((columns) => writeSqlQueryRow(columns, query, outcome, output, runtime.engine));
          return;
        }
        // The row waits for its plan; query.after itself never waits for the EXPLAIN.
        const pending = plans.capture(query).then((plan) => {
          writer.addWith((columns) => writeSqlQueryRow(columns, query, outcome, plan ?? output, runtime.engine));
        });
        awaitingPlans.add(pending);
        void pending.finally(() => awaitingPlans.delete(pending));
      });

      // One row per load or refresh of an accelerated dataset, failed ones included.
      runtime.hooks.datasets.loaded.tap({ name: TASK_HISTORY_PLUGIN_NAME, stage: STAGE.OBSERVE_LAST }, (event) => {
        if (event.accelerated) writer.add(refreshRow(event));
      });

      runtime.hooks.shutdown.stop.tapPromise({ name: TASK_HISTORY_PLUGIN_NAME, stage: STAGE.STOP_PLUGINS }, async () => {
        clearInterval(retentionTimer);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(awaitingPlans), new Promise((resolve) => (timer = setTimeout(resolve, PLAN_WAIT_ON_STOP_MS)))]);
        clearTimeout(timer);
        await writer.stop();
      });
    },
  };
}
