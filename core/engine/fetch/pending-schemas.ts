import type { Schema } from 'apache-arrow';
import { QuarryError } from '../../errors/quarry-error.js';
import type { Logger } from '../../log.js';
import type { DatasetConfig } from '../../manifest/types.js';
import { formatDuration } from '../../units.js';
import { fibonacciDelay } from '../acceleration/refresh-scheduler.js';
import type { FetchSource } from '../sources/connector.js';
import type { FetchDatasets } from './fetch-datasets.js';

/**
 * Backoff after a source failed to give its columns: 1 s, 1 s, 2 s, 3 s, ... at most 5 min. An
 * attempt that timed out (the source was waited on for its whole timeout, e.g. a scheduler
 * with no executor yet) is followed by the next at once: that asks at most once a minute.
 */
const RETRY_BASE_MS = 1_000;
const RETRY_CAP_MS = 5 * 60_000;

/** One fetch dataset whose columns its source has not given yet. */
interface PendingSchema {
  readonly config: DatasetConfig;
  readonly source: FetchSource;
  /** 1 for the request made at start-up, then one more per retry. */
  attempt: number;
  /** Attempts in a row that failed before their timeout (the backoff grows with them). */
  failures: number;
  /** When the current attempt began (performance.now()). */
  since: number;
  /** The current attempt's answer; undefined between a failure and the retry. */
  answer: Promise<Schema> | undefined;
  /** After a failure: when the next attempt starts (ISO-8601). */
  retryAt: string | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The columns of fetch datasets that did not answer in time for start-up: the datasets are
 * registered when they come (core/engine/datasets.ts). Every source is asked at once (one slow
 * source holds up no other), each attempt for at most FetchDatasets.schemaTimeoutMs (60 s); a failed attempt is
 * retried with backoff while the runtime runs, so a source that comes up later (a database
 * started after Quarry, a cluster executor joining its scheduler) is served without a restart.
 */
export class PendingSchemas {
  readonly #fetch: FetchDatasets;
  readonly #log: Logger;
  readonly #pending = new Map<string, PendingSchema>();
  #closed = false;

  constructor(options: { fetch: FetchDatasets; log: Logger }) {
    this.#fetch = options.fetch;
    this.#log = options.log;
  }

  /** Asks the source for the dataset's columns now (the first attempt). */
  ask(config: DatasetConfig, source: FetchSource): void {
    const pending: PendingSchema = { config, source, attempt: 1, failures: 0, since: performance.now(), answer: undefined, retryAt: undefined, timer: undefined };
    this.#pending.set(config.name.toLowerCase(), pending);
    this.#attempt(pending);
  }

  /** The current attempt's answer for a dataset still waiting (rejects when the attempt failed). */
  answer(name: string): Promise<Schema> | undefined {
    return this.#pending.get(name.toLowerCase())?.answer;
  }

  /**
   * The source's columns if they come before `deadline` (performance.now() time, or Infinity)
   * and before `signal` aborts; 'failed' when the attempt failed (the registry reports it when
   * it awaits `answer` again, after start-up), 'waiting' when there is no answer yet.
   */
  async answerWithin(name: string, deadline: number, signal: AbortSignal | undefined): Promise<Schema | 'failed' | 'waiting'> {
    const answer = (this.answer(name) ?? Promise.reject(new Error('not asked'))).catch(() => 'failed' as const);
    const remaining = deadline - performance.now();
    if (remaining === Number.POSITIVE_INFINITY) return answer;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const giveUp = new Promise<'waiting'>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, remaining), 'waiting');
      onAbort = () => resolve('waiting');
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([answer, giveUp]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Whether the dataset's columns are still awaited (an attempt running or a retry due). */
  has(name: string): boolean {
    return this.#pending.has(name.toLowerCase());
  }

  /** The source answered and the dataset is registered (or failed for another reason): nothing more to ask. */
  forget(name: string): void {
    const pending = this.#pending.get(name.toLowerCase());
    if (pending?.timer) clearTimeout(pending.timer);
    this.#pending.delete(name.toLowerCase());
  }

  /**
   * After a failed attempt (`error`): asks again after a backoff (at once after a timeout), then
   * calls `onAttempt` (which awaits `answer`). Returns when the next attempt starts, for the
   * dataset's status.
   */
  retryLater(name: string, error: unknown, onAttempt: () => void): string | undefined {
    const pending = this.#pending.get(name.toLowerCase());
    if (!pending || this.#closed) return undefined;
    const timedOut = error instanceof QuarryError && error.details?.['timed_out'] === true;
    if (!timedOut) pending.failures += 1;
    const delay = timedOut ? 0 : fibonacciDelay(pending.failures, RETRY_BASE_MS, RETRY_CAP_MS);
    pending.answer = undefined;
    pending.retryAt = new Date(Date.now() + delay).toISOString();
    pending.timer = setTimeout(() => {
      pending.timer = undefined;
      if (this.#closed) return;
      pending.attempt += 1;
      pending.since = performance.now();
      pending.retryAt = undefined;
      this.#log.info('asking a dataset source for its columns again', { dataset: pending.config.name, from: pending.config.from, attempt: pending.attempt });
      this.#attempt(pending);
      onAttempt();
    }, delay);
    // A retry due later never keeps the process alive on its own.
    pending.timer.unref();
    return pending.retryAt;
  }

  /**
   * What a dataset waits for, in words, for its status and for the error a query naming it
   * gets: the source's own account when it gives one (e.g. no live executor yet), how long it
   * has been asked, and when the attempt gives up; or when the next attempt starts.
   */
  describe(name: string): string | undefined {
    const pending = this.#pending.get(name.toLowerCase());
    if (!pending) return undefined;
    if (pending.answer === undefined) return `the next attempt to read its columns from ${pending.config.from}, at ${pending.retryAt}`;
    const asked = formatDuration(Math.round((performance.now() - pending.since) / 1000) * 1000);
    const reason = pending.source.schemaWait?.();
    return `its source (${pending.config.from}) to give its columns${reason ? `: ${reason}` : ''} (asked ${asked} ago${pending.attempt > 1 ? `, attempt ${pending.attempt}` : ''}; an attempt waits up to ${formatDuration(this.#fetch.schemaTimeoutMs)})`;
  }

  /** The error of a query naming a dataset whose columns are still awaited (503: try again later). */
  notReady(name: string, error: string | undefined): QuarryError | undefined {
    const pending = this.#pending.get(name.toLowerCase());
    if (!pending) return undefined;
    const dataset = pending.config.name;
    const message = pending.answer === undefined
      ? `dataset "${dataset}" is not ready: ${error ?? 'its source failed to give its columns'}; it is asked again at ${pending.retryAt}`
      : `dataset "${dataset}" is not ready: it waits for ${this.describe(name)}; it is served once they arrive (GET /v1/datasets shows its state)`;
    return new QuarryError('DATASET_NOT_READY', message, { details: { dataset } });
  }

  /** At shutdown: no more retries (the running attempts are aborted by FetchDatasets.close). */
  close(): void {
    this.#closed = true;
    for (const pending of this.#pending.values()) if (pending.timer) clearTimeout(pending.timer);
  }

  #attempt(pending: PendingSchema): void {
    pending.answer = this.#fetch.askSchema(pending.config, pending.source);
    // Awaited by the registry, maybe only after start-up's grace: never an unhandled rejection.
    pending.answer.catch(() => undefined);
  }
}
