import type { QueryOutcome, QueryRequest } from '../../core/pipeline/types.js';
import type { TaskHistoryConfig } from './schema.js';

export interface PlanCaptureOptions {
  mode: TaskHistoryConfig['captured_plan'];
  /** Only queries that ran longer than this get a plan (undefined: all). */
  minSqlDurationMs: number | undefined;
  /** A plan is kept only when the EXPLAIN itself took at least this long (undefined: always). */
  minPlanDurationMs: number | undefined;
  /** Runs the EXPLAIN as the runtime (outside the query pipeline: no task row, no metrics). */
  run(sql: string, parameters: readonly unknown[]): Promise<Array<Record<string, unknown>>>;
  /** EXPLAINs waiting or running at most; more are skipped (a flood must not queue unbounded work). */
  maxPending?: number;
  /** Called for each plan skipped because too many were pending. */
  onSkip?(): void;
}

/**
 * `captured_plan`: after a query completed, runs `EXPLAIN` or `EXPLAIN ANALYZE` on its SQL
 * and returns the plan text for the row's `captured_output` (regardless of
 * `captured_output`, as in Spice). Only successful reads qualify: `EXPLAIN ANALYZE` runs the
 * statement again, which must never repeat a write.
 */
export class PlanCapture {
  readonly #options: PlanCaptureOptions;
  #pending = 0;
  /** One EXPLAIN at a time: plans are background work and must leave the engine's connections to queries. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: PlanCaptureOptions) {
    this.#options = options;
  }

  /** Whether this query's row waits for a plan. */
  wants(query: QueryRequest, outcome: QueryOutcome): boolean {
    if (this.#options.mode === 'none' || outcome.status !== 'ok' || query.kind !== 'read') return false;
    const minimum = this.#options.minSqlDurationMs;
    return minimum === undefined || outcome.durationMs > minimum;
  }

  /** The plan text, or undefined (below min_plan_duration, too many pending, or EXPLAIN failed). */
  async capture(query: QueryRequest): Promise<string | undefined> {
    if (this.#pending >= (this.#options.maxPending ?? 16)) {
      this.#options.onSkip?.();
      return undefined;
    }
    this.#pending += 1;
    const plan = this.#queue.then(() => this.#explain(query));
    this.#queue = plan;
    try {
      return await plan;
    } finally {
      this.#pending -= 1;
    }
  }

  async #explain(query: QueryRequest): Promise<string | undefined> {
    const keyword = this.#options.mode === 'explain analyze' ? 'EXPLAIN ANALYZE' : 'EXPLAIN';
    try {
      const started = performance.now();
      const rows = await this.#options.run(`${keyword} ${query.sql}`, query.parameters);
      const elapsed = performance.now() - started;
      const minimum = this.#options.minPlanDurationMs;
      if (minimum !== undefined && elapsed < minimum) return undefined;
      return rows.map((row) => String(row['explain_value'] ?? '')).join('\n');
    } catch {
      // A plan is a nice-to-have: the row is written without it.
      return undefined;
    }
  }
}
