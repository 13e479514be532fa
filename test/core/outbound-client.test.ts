import test from 'ava';
import { createHooks } from '../../core/hooks/hooks.js';
import { createLogger } from '../../core/log.js';
import { OutboundClient } from '../../core/outbound/client.js';
import { parseRetryAfter, backoffDelay } from '../../core/outbound/retry-timing.js';
import type { OutboundRequest } from '../../core/outbound/types.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { startUpstream } from '../helpers/upstream.js';

function client() {
  const hooks = createHooks();
  return { hooks, client: new OutboundClient({ hooks, log: createLogger({ sink: () => undefined }) }) };
}

test('every attempt passes outbound.request with the dataset and attempt number; releases run after each attempt', async (t) => {
  let calls = 0;
  const upstream = await startUpstream((_request, response) => {
    calls++;
    if (calls < 3) response.writeHead(502).end('bad gateway');
    else response.writeHead(200).end('fine');
  });
  try {
    const { hooks, client: outbound } = client();
    const seen: Array<Pick<OutboundRequest, 'attempt' | 'origin' | 'connector' | 'authContext'> & { dataset: string | undefined }> = [];
    let released = 0;
    hooks.outbound.request.tapPromise('test', async (request) => {
      seen.push({ attempt: request.attempt, origin: request.origin, connector: request.connector, authContext: request.authContext, dataset: request.dataset?.name });
      request.defer(() => released++);
    });
    const response = await outbound.request({ url: `${upstream.origin}/x`, connector: 'https', dataset: { name: 'd', params: {} }, authContext: 'ctx', maxRetries: 3 });
    t.is(response.body!.toString(), 'fine');
    t.is(response.attempts, 3);
    t.deepEqual(seen.map((entry) => entry.attempt), [0, 1, 2]);
    t.deepEqual(seen[0], { attempt: 0, origin: upstream.origin, connector: 'https', authContext: 'ctx', dataset: 'd' });
    t.is(released, 3);
  } finally {
    await upstream.close();
  }
});

test('a body over the size limit fails at once (not retried), a 404 is not retried, a long Retry-After is not waited for', async (t) => {
  const upstream = await startUpstream((request, response) => {
    if (request.url === '/big') response.writeHead(200).end(Buffer.alloc(5000));
    else if (request.url === '/missing') response.writeHead(404).end('no such thing');
    else response.writeHead(503, { 'retry-after': '600' }).end('later');
  });
  try {
    const { client: outbound } = client();
    const big = await t.throwsAsync(outbound.request({ url: `${upstream.origin}/big`, connector: 'https', maxResponseBytes: 1000 }));
    t.is((big as QuarryError).code, 'UPSTREAM_RESPONSE_TOO_LARGE');
    const missing = await t.throwsAsync(outbound.request({ url: `${upstream.origin}/missing`, connector: 'https' }));
    t.is((missing as QuarryError).code, 'UPSTREAM_REQUEST_FAILED');
    t.regex(missing!.message, /^GET http:\/\/127\.0\.0\.1:\d+\/missing answered 404 Not Found: no such thing$/);
    const later = await t.throwsAsync(outbound.request({ url: `${upstream.origin}/later`, connector: 'https' }));
    t.regex(later!.message, /answered 503 Service Unavailable: later; the upstream asked to retry after 600 s, longer than the 120 s the client waits/);
    t.deepEqual(upstream.arrivals.map((arrival) => arrival.path), ['/big', '/missing', '/later']);
  } finally {
    await upstream.close();
  }
});

test('a refused connection is retried and then reported; a cancelled call stops', async (t) => {
  const { client: outbound } = client();
  const closed = await startUpstream(() => undefined);
  await closed.close(); // a port nothing listens on any more
  const refused = await t.throwsAsync(outbound.request({ url: `${closed.origin}/`, connector: 'https', maxRetries: 1 }));
  t.is(refused!.message, `GET ${closed.origin}/ failed: ECONNREFUSED (after 2 attempts)`);
  const controller = new AbortController();
  controller.abort();
  const { hooks, client: withWait } = client();
  hooks.outbound.request.tapPromise('test', async (request) => {
    if (request.signal.aborted) throw new QuarryError('RATE_CONTROL_WAIT_CANCELLED', 'cancelled while waiting');
  });
  const cancelled = await t.throwsAsync(withWait.request({ url: 'http://127.0.0.1:9/', connector: 'https', signal: controller.signal }));
  t.is((cancelled as QuarryError).code, 'RATE_CONTROL_WAIT_CANCELLED');
});

test('Retry-After as seconds or an HTTP date; backoff stays within its cap', (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.is(parseRetryAfter('3', now), 3000);
  t.is(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now), 5000);
  t.is(parseRetryAfter('soon', now), undefined);
  t.is(parseRetryAfter(null, now), undefined);
  t.is(backoffDelay(10, 250, 30_000, () => 1), 30_000);
  t.is(backoffDelay(1, 250, 30_000, () => 0.5), 250);
});
