import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

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
 * response size cap, then posts the outcomes and wakes the waiting thread.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
async function send(job, timeoutMs, maxBytes) {
  try {
    const response = await fetch(job.url, { method: 'POST', headers: job.headers, body: job.body, signal: AbortSignal.timeout(timeoutMs) });
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
    const timedOut = error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { ok: false, error: timedOut ? 'no answer within ' + timeoutMs + 'ms (params.timeout)' : String(error && error.cause ? error.cause.message || error.cause : error) };
  }
}
parentPort.on('message', async ({ port, signal, jobs, timeoutMs, maxBytes, concurrency }) => {
  const outcomes = new Array(jobs.length);
  let next = 0;
  const lane = async () => { while (next < jobs.length) { const index = next++; outcomes[index] = await send(jobs[index], timeoutMs, maxBytes); } };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, lane));
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

  /** Sends every job (at most `concurrency` at once) and returns the outcomes in order. */
  postAll(jobs: readonly HttpJob[], options: { timeoutMs: number; maxBytes: number; concurrency: number }): HttpOutcome[] {
    if (jobs.length === 0) return [];
    const signal = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    this.#getWorker().postMessage({ port: port2, signal, jobs, ...options }, [port2 as MessagePort]);
    // Every job has its own timeout; the margin covers worker start-up and queueing.
    const waitMs = options.timeoutMs * Math.ceil(jobs.length / options.concurrency) + 5_000;
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
