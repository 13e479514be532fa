/** One POST of a batch. */
export interface HttpJob {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type HttpOutcome = { ok: true; status: number; text: string } | { ok: false; error: string };

export interface BatchOptions {
  /** Each POST's own limit. */
  timeoutMs: number;
  /** The largest answer body read; a larger one fails that POST. */
  maxBytes: number;
  /** POSTs in flight at once. */
  concurrency: number;
  /** When set, the whole batch is cut off then: unfinished POSTs fail. */
  deadlineMs?: number;
}

/** The reason the deadline's controller aborts with, told apart from a POST's own timeout. */
class DeadlineReached extends Error {
  constructor(readonly deadlineMs: number) {
    super(`no answer before the deadline of the whole chunk (${deadlineMs}ms)`);
  }
}

/**
 * The HTTP side of remote functions and SQL tools: POSTs on the event loop, awaited. The
 * engine thread that asked waits for the answers (core/engine/native/async-scalar.ts); the
 * JS thread does not. `close()` (shutdown) fails everything still out, at once.
 */
export class HttpBatchClient {
  readonly #closing = new AbortController();

  /** Sends every job (at most `concurrency` at once) and answers the outcomes in job order; it never rejects. */
  async postAll(jobs: readonly HttpJob[], options: BatchOptions): Promise<HttpOutcome[]> {
    const outcomes = new Array<HttpOutcome>(jobs.length);
    const deadline = new AbortController();
    const timer = options.deadlineMs === undefined ? undefined : setTimeout(() => deadline.abort(new DeadlineReached(options.deadlineMs!)), options.deadlineMs);
    const group = AbortSignal.any([deadline.signal, this.#closing.signal]);
    let next = 0;
    const lane = async () => {
      while (next < jobs.length) {
        const index = next++;
        outcomes[index] = await send(jobs[index]!, options, group);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(options.concurrency, jobs.length) }, lane));
    } finally {
      clearTimeout(timer);
    }
    return outcomes;
  }

  close(): void {
    this.#closing.abort(new Error('the runtime is shutting down'));
  }
}

async function send(job: HttpJob, options: BatchOptions, group: AbortSignal): Promise<HttpOutcome> {
  try {
    const response = await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body, signal: AbortSignal.any([AbortSignal.timeout(options.timeoutMs), group]) });
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > options.maxBytes) {
        await reader.cancel();
        return { ok: false, error: `response is larger than max_response_bytes (${options.maxBytes} bytes)` };
      }
      chunks.push(value);
    }
    return { ok: true, status: response.status, text: Buffer.concat(chunks).toString('utf8') };
  } catch (error) {
    // fetch rejects with the reason of the signal that fired first.
    if (group.aborted) return { ok: false, error: (group.reason as Error).message };
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const cause = (error as { cause?: { message?: string } }).cause;
    return { ok: false, error: timedOut ? `no answer within ${options.timeoutMs}ms (params.timeout)` : String(cause?.message ?? cause ?? error) };
  }
}
