import test from 'ava';
import { startRuntime, withRuntime } from '../helpers/runtime.js';
import { startUpstream, type Arrival } from '../helpers/upstream.js';
import { githubIssuesDataset, paginatedIssues } from '../helpers/github-upstream.js';

/** The most arrivals inside any span of `spanMs` (a rolling window over sorted times). */
function mostWithin(arrivals: readonly Arrival[], spanMs: number): number {
  const times = arrivals.map((arrival) => arrival.at).sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < times.length; end++) {
    while (times[end]! - times[start]! >= spanMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

const manifestWith = (runtimeBlock: string, datasets: string) => `
version: v2
kind: Spicepod
name: t
runtime:
${runtimeBlock}
datasets:${datasets}
`;

test('http_max_concurrent_requests limits in-flight requests per origin; each origin has its own limit', async (t) => {
  let together = 0;
  let mostTogether = 0;
  const slowCsv = (_request: unknown, response: import('node:http').ServerResponse) => {
    together++;
    mostTogether = Math.max(mostTogether, together);
    setTimeout(() => {
      together--;
      response.writeHead(200, { 'content-type': 'text/csv' }).end('a\n1\n');
    }, 150);
  };
  const first = await startUpstream(slowCsv);
  const second = await startUpstream(slowCsv);
  try {
    const datasets = [first, second]
      .flatMap((upstream, origin) => Array.from({ length: 5 }, (_, index) => `
  - from: ${upstream.origin}/file-${index}.csv
    name: o${origin}_d${index}
    acceleration:
      enabled: true`))
      .join('');
    await withRuntime(t, { manifest: manifestWith('  params:\n    http_max_concurrent_requests: 2', datasets) }, async ({ sql }) => {
      t.is((((await (await sql('SELECT count(*) AS n FROM o1_d4')).json()) as Array<{ n: number }>)[0]!).n, 1);
    });
    t.is(first.arrivals.length, 5);
    t.is(second.arrivals.length, 5);
    t.is(first.maxInFlight(), 2, 'never more than 2 at once at the first origin, and the limit was reached');
    t.is(second.maxInFlight(), 2);
    t.is(mostTogether, 4, 'the two origins are limited separately: 2 + 2 at once');
  } finally {
    await first.close();
    await second.close();
  }
});

test('http_requests_per_second_limit: at most N arrivals in any second at the upstream', async (t) => {
  let origin = '';
  const upstream = await startUpstream(paginatedIssues({ origin: () => origin, pages: 16 }));
  origin = upstream.origin;
  try {
    const manifest = manifestWith('  params:\n    http_requests_per_second_limit: 5', githubIssuesDataset({ name: 'issues', origin, repo: 'acme/widgets' }));
    await withRuntime(t, { manifest }, async ({ sql, runtime }) => {
      t.is((((await (await sql('SELECT count(*) AS n FROM issues')).json()) as Array<{ n: number }>)[0]!).n, 16);
      const waits = runtime.metrics.snapshot('http_rate_control_wait_ms')!.points.find((point) => point.attributes['origin'] === origin)!;
      t.is(waits.count, 16, 'every attempt recorded its wait');
      t.true(waits.max! >= 500, `the sixth request waited for the first one's second to pass (${Math.round(waits.max!)} ms)`);
    });
    t.is(upstream.arrivals.length, 16);
    // The limiter spaces grants; the upstream stamps arrivals. Between the two lie connection
    // set-up and event-loop lag (up to ~250 ms seen on a loaded 2-core machine, the upstream
    // shares the runtime's process), so the rolling check uses spans of 700 ms, and the
    // whole run must still take the 3 s the limit implies (unlimited, all 16 arrive in ~0.1 s).
    t.true(mostWithin(upstream.arrivals, 700) <= 5, `most arrivals within 700 ms: ${mostWithin(upstream.arrivals, 700)}`);
    const span = upstream.arrivals.at(-1)!.at - upstream.arrivals[0]!.at;
    t.true(span >= 2750, `16 requests at 5/s span at least 3 s (first five at once): ${Math.round(span)} ms`);
  } finally {
    await upstream.close();
  }
});

test('dataset overrides win over runtime defaults; jitter bounds the gap between requests', async (t) => {
  let origin = '';
  const upstream = await startUpstream(paginatedIssues({ origin: () => origin, pages: 8 }));
  origin = upstream.origin;
  try {
    const datasets =
      githubIssuesDataset({ name: 'fast', origin, repo: 'acme/fast', params: { requests_per_second_limit: '100' } }) +
      githubIssuesDataset({ name: 'slow', origin, repo: 'acme/slow' }) +
      githubIssuesDataset({ name: 'jittery', origin, repo: 'acme/jittery', params: { max_concurrent_requests: '4', requests_per_second_limit: '1000', rate_control_jitter_min: '120ms', rate_control_jitter_max: '160ms' } });
    const manifest = manifestWith('  params:\n    http_requests_per_second_limit: 2\n    http_rate_control_jitter_min: 0ms\n    http_rate_control_jitter_max: 1ms', datasets);
    await withRuntime(t, { manifest }, async () => undefined);
    const of = (repo: string) => upstream.arrivals.filter((arrival) => arrival.path.startsWith(`/repos/acme/${repo}/`));
    t.is(of('fast').length, 8);
    t.is(of('slow').length, 8);
    const slowTimes = of('slow').map((arrival) => Math.round(arrival.at - of('slow')[0]!.at));
    // 700 ms spans: see the per-second test for why arrivals are not checked over a full second.
    t.true(mostWithin(of('slow'), 700) <= 2, `the runtime default (2/s) applies without an override: ${mostWithin(of('slow'), 700)} within 700 ms (arrivals at ${slowTimes.join(', ')} ms)`);
    t.true(slowTimes.at(-1)! >= 2750, `8 requests at 2/s take at least 3 s: ${slowTimes.at(-1)} ms`);
    t.true(mostWithin(of('fast'), 700) >= 4, `the dataset override (100/s) wins over the runtime default: ${mostWithin(of('fast'), 700)} within 700 ms`);
    const jittery = of('jittery').map((arrival) => arrival.at);
    const gaps = jittery.slice(1).map((at, index) => at - jittery[index]!);
    t.true(gaps.every((gap) => gap >= 115), `every request waited at least the 120 ms jitter minimum: gaps ${gaps.map(Math.round).join(', ')}`);
    const sortedGaps = [...gaps].sort((a, b) => a - b);
    t.true(sortedGaps[Math.floor(gaps.length / 2)]! < 400, `gaps stay near the jitter range (median ${Math.round(sortedGaps[Math.floor(gaps.length / 2)]!)} ms)`);
  } finally {
    await upstream.close();
  }
});

test('codehost_concurrent_connections_limit counts per token; the deprecated runtime param maps onto it', async (t) => {
  let origin = '';
  const inFlightByToken = new Map<string, number>();
  const mostByToken = new Map<string, number>();
  const pages = paginatedIssues({ origin: () => origin, pages: 1, delayMs: 150 });
  const upstream = await startUpstream((request, response) => {
    const token = String(request.headers['authorization']);
    inFlightByToken.set(token, (inFlightByToken.get(token) ?? 0) + 1);
    mostByToken.set(token, Math.max(mostByToken.get(token) ?? 0, inFlightByToken.get(token)!));
    response.once('close', () => inFlightByToken.set(token, inFlightByToken.get(token)! - 1));
    pages(request, response);
  });
  origin = upstream.origin;
  try {
    const datasets = ['a', 'b', 'c', 'd']
      .flatMap((repo) => [githubIssuesDataset({ name: `${repo}_one`, origin, repo: `one/${repo}`, token: 'token-one' }), githubIssuesDataset({ name: `${repo}_two`, origin, repo: `two/${repo}`, token: 'token-two' })])
      .join('');
    const manifest = manifestWith('  params:\n    codehost_max_concurrent_connections: 1', datasets);
    await withRuntime(t, { manifest }, async ({ logs }) => {
      t.true(logs.some((record) => /codehost_max_concurrent_connections is deprecated: its value 1 is applied as runtime\.source_rate_control\.codehost_concurrent_connections_limit/.test(record.message)));
    });
    t.is(upstream.arrivals.length, 8);
    t.deepEqual(Object.fromEntries(mostByToken), { 'Bearer token-one': 1, 'Bearer token-two': 1 }, 'one request at a time per token');
    t.is(upstream.maxInFlight(), 2, 'the two tokens are limited separately');
  } finally {
    await upstream.close();
  }
});

test('a bad per-dataset override fails start-up naming the dataset and key', async (t) => {
  const manifest = manifestWith('  params:\n    http_requests_per_second_limit: 2', githubIssuesDataset({ name: 'bad', origin: 'http://127.0.0.1:9', repo: 'a/b', params: { requests_per_second_limit: 'lots' } }));
  const error = await t.throwsAsync(startRuntime({ manifest }));
  t.regex(error!.message, /dataset bad: params\.requests_per_second_limit "lots" is not valid; use a whole number of 1 or more/);
  t.is((error as { code?: string }).code, 'RATE_CONTROL_PARAM_INVALID');
});
