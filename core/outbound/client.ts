import { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { Logger } from '../log.js';
import { readBody } from './response-body.js';
import { backoffDelay, isRetryableStatus, parseRetryAfter, sleep } from './retry-timing.js';
import type { OutboundCall, OutboundRequest, OutboundResponse } from './types.js';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_MAX_RESPONSE_BYTES = 1024 ** 3;
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 30_000;
/** A Retry-After longer than this is not waited for: the call fails and says why. */
const MAX_RETRY_AFTER_MS = 120_000;

/**
 * The one HTTP client every connector uses for upstream requests: per-attempt timeouts,
 * retries with backoff on 429/5xx honouring Retry-After, a response-size limit, and the
 * `outbound.request` hook before each attempt (where rate control waits for a permit).
 * A non-2xx answer after the last retry throws: an upstream error never becomes data.
 */
export class OutboundClient {
  readonly #hooks: Hooks;
  readonly #log: Logger;

  constructor(options: { hooks: Hooks; log: Logger }) {
    this.#hooks = options.hooks;
    this.#log = options.log;
  }

  async request(call: OutboundCall): Promise<OutboundResponse> {
    const url = typeof call.url === 'string' ? new URL(call.url) : call.url;
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new QuarryError('UPSTREAM_REQUEST_FAILED', `cannot request ${url.protocol}// URLs; only http:// and https:// are supported`);
    }
    const where = `${call.method ?? 'GET'} ${url.origin}${url.pathname}`;
    const maxRetries = call.maxRetries ?? DEFAULT_MAX_RETRIES;
    const signal = call.signal ?? new AbortController().signal;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#attempt(call, url, attempt, signal);
      if (outcome.kind === 'response') return { ...outcome.response, attempts: attempt + 1 };
      const { failure } = outcome;
      if (signal.aborted) throw failure;
      if (!outcome.retryable || attempt >= maxRetries) {
        throw attempt === 0 ? failure : new QuarryError(failure.code, `${failure.message} (after ${attempt + 1} attempts)`, { cause: failure, details: failure.details });
      }
      const delay = outcome.retryAfterMs ?? backoffDelay(attempt, BACKOFF_BASE_MS, BACKOFF_CAP_MS);
      if (delay > MAX_RETRY_AFTER_MS) {
        throw new QuarryError(failure.code, `${failure.message}; the upstream asked to retry after ${Math.round(delay / 1000)} s, longer than the ${MAX_RETRY_AFTER_MS / 1000} s the client waits`, { cause: failure });
      }
      this.#log.debug('retrying an upstream request', { request: where, attempt: attempt + 1, delayMs: delay, reason: failure.message });
      await sleep(delay, signal);
    }
  }

  async #attempt(
    call: OutboundCall,
    url: URL,
    attempt: number,
    signal: AbortSignal,
  ): Promise<
    | { kind: 'response'; response: Omit<OutboundResponse, 'attempts'> }
    | { kind: 'failure'; failure: QuarryError; retryable: boolean; retryAfterMs?: number }
  > {
    const releases: Array<() => void> = [];
    const request: OutboundRequest = {
      url,
      origin: url.origin,
      method: call.method ?? 'GET',
      connector: call.connector,
      dataset: call.dataset,
      authContext: call.authContext,
      attempt,
      signal,
      defer: (release) => releases.push(release),
    };
    const where = `${request.method} ${url.origin}${url.pathname}`;
    try {
      await this.#hooks.outbound.request.promise(request);
      const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const attemptSignal = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
      let response: Response;
      try {
        response = await fetch(url, { method: request.method, headers: call.headers, body: call.body, signal: attemptSignal, redirect: 'follow' });
      } catch (error) {
        return { kind: 'failure', ...networkFailure(error, where, timeoutMs, signal) };
      }
      if (!response.ok) {
        const snippet = (await response.text().catch(() => '')).slice(0, 300).replace(/\s+/g, ' ').trim();
        const failure = new QuarryError('UPSTREAM_REQUEST_FAILED', `${where} answered ${response.status} ${response.statusText}${snippet ? `: ${snippet}` : ''}`, {
          details: { origin: url.origin, status: response.status },
        });
        const throttled = call.throttledFor?.(response.status, response.headers);
        return {
          kind: 'failure',
          failure,
          retryable: isRetryableStatus(response.status) || throttled !== undefined,
          retryAfterMs: parseRetryAfter(response.headers.get('retry-after')) ?? throttled,
        };
      }
      try {
        const { body, bytes } = await readBody(response, { limit: call.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES, destination: call.destination, url });
        return { kind: 'response', response: { status: response.status, headers: response.headers, body, bytes } };
      } catch (error) {
        if (error instanceof QuarryError) return { kind: 'failure', failure: error, retryable: false };
        return { kind: 'failure', ...networkFailure(error, where, timeoutMs, signal) };
      }
    } finally {
      for (const release of releases.reverse()) {
        try {
          release();
        } catch (error) {
          this.#log.error('an outbound.request release failed', { error: (error as Error).message });
        }
      }
    }
  }
}

function networkFailure(error: unknown, where: string, timeoutMs: number, callerSignal: AbortSignal): { failure: QuarryError; retryable: boolean } {
  if (callerSignal.aborted) {
    return { failure: new QuarryError('UPSTREAM_REQUEST_FAILED', `${where} was cancelled`, { cause: error }), retryable: false };
  }
  const named = error as { name?: string; cause?: { code?: string; message?: string } };
  if (named.name === 'TimeoutError' || named.name === 'AbortError') {
    return { failure: new QuarryError('UPSTREAM_TIMEOUT', `${where} did not complete within ${timeoutMs} ms (client_timeout)`, { cause: error }), retryable: true };
  }
  const reason = named.cause?.code ?? named.cause?.message ?? (error instanceof Error ? error.message : String(error));
  return { failure: new QuarryError('UPSTREAM_REQUEST_FAILED', `${where} failed: ${reason}`, { cause: error }), retryable: true };
}
