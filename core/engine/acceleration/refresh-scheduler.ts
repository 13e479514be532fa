import { isQuarryError, toQuarryError } from '../../errors/quarry-error.js';
import type { Logger } from '../../log.js';
import { formatDuration } from '../../units.js';

/** One dataset's schedule: `refresh_check_interval` and the retry settings. */
export interface RefreshSchedule {
  readonly dataset: string;
  /** Milliseconds between refreshes; undefined: no periodic refresh (retries only). */
  readonly intervalMs: number | undefined;
  /** `refresh_retry_enabled` (default true). */
  readonly retryEnabled: boolean;
  /** `refresh_retry_max_attempts`; undefined retries until a refresh succeeds. */
  readonly maxAttempts: number | undefined;
}

/**
 * What an attempt reported: done, failed (retry), skipped (another refresh was running), or
 * unbindable (its refresh_sql does not bind: retried at most UNBINDABLE_RETRIES times).
 */
export type AttemptOutcome = 'ok' | 'failed' | 'skipped' | 'unbindable';

/**
 * Retries of a refresh whose SQL does not bind: enough for a dataset it reads that is still
 * registering (1 + 1 + 2 + 3 + 5 s of backoff at the default base), then the dataset stays in
 * error until its refresh_sql changes or a refresh is asked for.
 */
export const UNBINDABLE_RETRIES = 5;

/**
 * Whether a failed load or refresh of a dataset with refresh_sql failed because that SQL does
 * not bind (a column or table it names does not exist, or it does not parse): the engine's
 * Binder, Catalog or Parser error anywhere in the failure's causes. Retrying such a failure
 * cannot help — unless the table it names is another dataset still registering, which is why
 * the scheduler retries it a few times, not never.
 */
export function isUnbindableRefresh(error: unknown, hasRefreshSql: boolean): boolean {
  if (!hasRefreshSql) return false;
  for (let cause: unknown = error, depth = 0; cause !== undefined && cause !== null && depth < 8; depth += 1) {
    const message = cause instanceof Error || isQuarryError(cause) ? (cause as Error).message : String(cause);
    if (/\b(Binder|Catalog|Parser) Error:/.test(message)) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The n-th retry's delay (1-based): Fibonacci multiples of `baseMs` (1, 1, 2, 3, 5, 8, ...),
 * capped so a long outage is retried at least every `capMs`.
 */
export function fibonacciDelay(attempt: number, baseMs: number, capMs: number): number {
  let previous = 0;
  let current = 1;
  for (let step = 1; step < attempt && current * baseMs < capMs; step++) [previous, current] = [current, previous + current];
  return Math.min(current * baseMs, capMs);
}

/**
 * Periodic refreshes and retries of accelerated datasets. Each dataset has one chain of
 * timers (never overlapping): wait the interval, refresh; on failure retry with Fibonacci
 * backoff until a refresh succeeds or `refresh_retry_max_attempts` retries have failed, then
 * go back to waiting the interval. The previous data is served throughout (the registry keeps
 * it); the failure is logged here and shown in the dataset's status by the registry.
 */
export class RefreshScheduler {
  readonly #attempt: (dataset: string) => Promise<AttemptOutcome>;
  readonly #log: Logger;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #closed = false;

  constructor(options: { attempt: (dataset: string) => Promise<AttemptOutcome>; log: Logger; baseDelayMs?: number; maxDelayMs?: number }) {
    this.#attempt = options.attempt;
    this.#log = options.log;
    this.#baseDelayMs = options.baseDelayMs ?? 1000;
    this.#maxDelayMs = options.maxDelayMs ?? 5 * 60_000;
  }

  /**
   * Starts a dataset's chain. `failedFirst`: its initial load failed, so retrying starts now
   * (with backoff) instead of after the first interval.
   */
  start(schedule: RefreshSchedule, options: { failedFirst: boolean }): void {
    if (this.#closed) return;
    if (options.failedFirst && schedule.retryEnabled) this.#retry(schedule, 1);
    else this.#waitInterval(schedule);
  }

  #waitInterval(schedule: RefreshSchedule): void {
    if (schedule.intervalMs === undefined) return;
    this.#after(schedule.dataset, schedule.intervalMs, async () => {
      const outcome = await this.#run(schedule.dataset);
      if ((outcome === 'failed' || outcome === 'unbindable') && schedule.retryEnabled) this.#retry(schedule, 1);
      else this.#waitInterval(schedule);
    });
  }

  #retry(schedule: RefreshSchedule, attempt: number): void {
    if (schedule.maxAttempts !== undefined && attempt > schedule.maxAttempts) {
      this.#log.warn('refresh retries exhausted; the previous data stays until the next scheduled refresh', {
        dataset: schedule.dataset,
        attempts: schedule.maxAttempts,
        next: schedule.intervalMs === undefined ? 'none (no refresh_check_interval)' : formatDuration(schedule.intervalMs),
      });
      this.#waitInterval(schedule);
      return;
    }
    const delay = fibonacciDelay(attempt, this.#baseDelayMs, this.#maxDelayMs);
    this.#log.info('refresh will be retried', { dataset: schedule.dataset, attempt, of: schedule.maxAttempts ?? 'unlimited', in_ms: delay });
    this.#after(schedule.dataset, delay, async () => {
      const outcome = await this.#run(schedule.dataset);
      if (outcome === 'unbindable' && attempt >= UNBINDABLE_RETRIES) {
        this.#log.error('refresh_sql does not bind: retries stopped; the dataset stays in error until PATCH /v1/datasets/{name}/acceleration sets a refresh_sql that binds and a refresh runs', {
          dataset: schedule.dataset,
          attempts: attempt,
          next: schedule.intervalMs === undefined ? 'none (no refresh_check_interval)' : formatDuration(schedule.intervalMs),
        });
        this.#waitInterval(schedule);
      } else if (outcome === 'failed' || outcome === 'unbindable') this.#retry(schedule, attempt + 1);
      else this.#waitInterval(schedule);
    });
  }

  async #run(dataset: string): Promise<AttemptOutcome> {
    try {
      return await this.#attempt(dataset);
    } catch (error) {
      this.#log.error('scheduled refresh failed', { dataset, error: toQuarryError(error).message });
      return 'failed';
    }
  }

  #after(dataset: string, delayMs: number, work: () => Promise<void>): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(dataset);
      if (!this.#closed) void work();
    }, delayMs);
    // A pending refresh never keeps the process alive.
    timer.unref();
    this.#timers.set(dataset, timer);
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
