import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

/** How much longer than a group's deadline the JS thread waits for the worker's answer. */
export const STALL_MARGIN_MS = 2_000;

/** One POST the worker sends. */
export interface HttpJob {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type HttpOutcome = { ok: true; status: number; text: string } | { ok: false; error: string };

/**
 * The worker: plain JS (eval), so it runs the same under tsx and compiled builds. It sends
 * a group of POSTs with at most `concurrency` in flight, each with its own timeout and a
 * response size cap, all cut off at the group's deadline, then posts the outcomes and
 * wakes the waiting thread.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
async function send(job, timeoutMs, maxBytes, deadline) {
  try {
    const response = await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body, signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), deadline]) });
    const reader = response.body.getReader();
    const chunks = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) { await reader.cancel(); return { ok: false, error: 'response is larger than max_response_bytes (' + maxBytes + ' bytes)' }; }
      chunks.push(value);
    }
    return { ok: true, status: response.status, text: Buffer.concat(chunks).toString('utf8') };
  } catch (error) {
    // fetch rejects with the reason of the signal that fired first: the deadline's is { deadlineMs }.
    if (error && error.deadlineMs !== undefined) return { ok: false, error: 'no answer before the deadline of the whole chunk (' + error.deadlineMs + 'ms)' };
    const timedOut = error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { ok: false, error: timedOut ? 'no answer within ' + timeoutMs + 'ms (params.timeout)' : String(error && error.cause ? error.cause.message || error.cause : error) };
  }
}
parentPort.on('message', async ({ port, signal, jobs, timeoutMs, maxBytes, concurrency, deadlineMs }) => {
  const outcomes = new Array(jobs.length);
  const controller = new AbortController();
  const timer = deadlineMs === undefined ? undefined : setTimeout(() => controller.abort({ deadlineMs }), deadlineMs);
  let next = 0;
  const lane = async () => { while (next < jobs.length) { const index = next++; outcomes[index] = await send(jobs[index], timeoutMs, maxBytes, controller.signal); } };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, lane));
  clearTimeout(timer);
  port.postMessage(outcomes);
  port.close();
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
});
`;

/**
 * Blocking HTTP for DuckDB scalar UDFs. DuckDB calls a JS UDF synchronously on the JS thread
 * and needs the output vector filled before the callback returns, so the callback cannot
 * await a fetch. The POSTs run in a worker thread while this thread waits on a shared flag
 * (Atomics.wait). The cost: the event loop, and so every other request of this process,
 * waits while a batch is out (at most the timeout). docs/plugins/functions.md says so.
 */
export class SyncHttpClient {
  #worker: Worker | undefined;

  #getWorker(): Worker {
    if (!this.#worker) {
      this.#worker = new Worker(WORKER_SOURCE, { eval: true });
      // An idle worker must not keep the process alive.
      this.#worker.unref();
    }
    return this.#worker;
  }

  /**
   * Sends every job (at most `concurrency` at once) and returns the outcomes in order. Each
   * job has `timeoutMs`; with `deadlineMs` the whole group is cut off then (unfinished jobs
   * fail). The JS thread is blocked for at most the deadline (without one: one timeout per
   * round of `concurrency` jobs) plus a small margin: the stall bound callers document.
   */
  postAll(jobs: readonly HttpJob[], options: { timeoutMs: number; maxBytes: number; concurrency: number; deadlineMs?: number }): HttpOutcome[] {
    if (jobs.length === 0) return [];
    const boundMs = options.deadlineMs ?? options.timeoutMs * Math.ceil(jobs.length / options.concurrency);
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    this.#getWorker().postMessage({ port: port2, signal, jobs, ...options }, [port2 as MessagePort]);
    // The worker answers within the bound; the margin covers its start-up and queueing.
    const waitMs = boundMs + STALL_MARGIN_MS;
    const woke = Atomics.wait(signal, 0, 0, waitMs);
    const message = receiveMessageOnPort(port1);
    port1.close();
    if (woke === 'timed-out' || !message) throw new Error(`no answer within ${waitMs}ms`);
    return message.message as HttpOutcome[];
  }

  async close(): Promise<void> {
    await this.#worker?.terminate();
    this.#worker = undefined;
  }
}
