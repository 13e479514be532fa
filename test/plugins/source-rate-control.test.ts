import test from 'ava';
import { STAGE } from '../../core/hooks/stages.js';
import type { BundledPlugin, QuarryPlugin } from '../../core/plugins/types.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { startRuntime, withRuntime } from '../helpers/runtime.js';
import { startUpstream } from '../helpers/upstream.js';
import { githubIssuesDataset, paginatedIssues } from '../helpers/github-upstream.js';

/** A moment something happened, and to which request path (with its query). */
interface Stamp {
  readonly at: number;
  readonly path: string;
}

/**
 * Records when rate control let each upstream request go (a tap after it on the outbound
 * hook), on the same clock as the upstream's arrivals. The limits are a promise about these
 * moments: arrivals come later by connection set-up and event-loop lag, which on a loaded
 * 2-core machine varies by hundreds of milliseconds, so a window of arrivals can hold one
 * request more than the limit although the runtime kept it.
 */
function grantRecorder(): { bundle: BundledPlugin[]; grants: Stamp[] } {
  const grants: Stamp[] = [];
  const plugin: QuarryPlugin = {
    name: 'test-grant-recorder',
    apply(runtime) {
      runtime.hooks.outbound.request.tap({ name: 'test-grant-recorder', stage: STAGE.OBSERVE_LAST }, (request) => {
        grants.push({ at: performance.timeOrigin + performance.now(), path: request.url.pathname + request.url.search });
      });
    },
  };
  return { bundle: [...defaultPlugins(), plugin], grants };
}

/** Every arrival comes after the grant of its request (matched by path, in order). */
function arrivalsFollowGrants(arrivals: readonly Stamp[], grants: readonly Stamp[]): boolean {
  const pending = new Map<string, number[]>();
  for (const grant of grants) pending.set(grant.path, [...(pending.get(grant.path) ?? []), grant.at]);
  return arrivals.every((arrival) => {
    const granted = pending.get(arrival.path)?.shift();
    return granted !== undefined && arrival.at >= granted - 1;
  });
}

/** The most stamps inside any span of `spanMs` (a rolling window over sorted times). */
function mostWithin(arrivals: readonly Stamp[], spanMs: number): number {
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

test('http_requests_per_second_limit: at most N requests go in any second; the upstream sees each after it went', async (t) => {
  let origin = '';
  const upstream = await startUpstream(paginatedIssues({ origin: () => origin, pages: 16 }));
  origin = upstream.origin;
  const { bundle, grants } = grantRecorder();
  try {
    const manifest = manifestWith('  params:\n    http_requests_per_second_limit: 5', githubIssuesDataset({ name: 'issues', origin, repo: 'acme/widgets' }));
    await withRuntime(t, { manifest, bundle }, async ({ sql, runtime }) => {
      t.is((((await (await sql('SELECT count(*) AS n FROM issues')).json()) as Array<{ n: number }>)[0]!).n, 16);
      const waits = runtime.metrics.snapshot('http_rate_control_wait_ms')!.points.find((point) => point.attributes['origin'] === origin)!;
      t.is(waits.count, 16, 'every attempt recorded its wait');
    });
    t.is(grants.length, 16);
    t.is(upstream.arrivals.length, 16);
    // The sliding window holds over every second. The first five go at once and the sixth
    // exactly 1 s later, but each is stamped here only after the limiter let it go: on a
    // loaded machine the burst's last stamps come a few ms late, which moved them into the
    // sixth's second (a run counted 6). A window 100 ms short of a second tolerates that
    // stamping delay and still catches a limiter letting a sixth go early.
    t.true(mostWithin(grants, 900) <= 5, `most requests let go within 0.9 s: ${mostWithin(grants, 900)}`);
    const span = grants.at(-1)!.at - grants[0]!.at;
    t.true(span >= 2990, `16 requests at 5/s span at least 3 s (first five at once): ${Math.round(span)} ms`);
    t.true(arrivalsFollowGrants(upstream.arrivals, grants), 'no request reached the upstream before rate control let it go');
  } finally {
    await upstream.close();
  }
});

test('dataset overrides win over runtime defaults; jitter bounds the gap between requests', async (t) => {
  let origin = '';
  const upstream = await startUpstream(paginatedIssues({ origin: () => origin, pages: 8 }));
  origin = upstream.origin;
  const { bundle, grants } = grantRecorder();
  try {
    const datasets =
      githubIssuesDataset({ name: 'fast', origin, repo: 'acme/fast', params: { requests_per_second_limit: '100' } }) +
      githubIssuesDataset({ name: 'slow', origin, repo: 'acme/slow' }) +
      githubIssuesDataset({ name: 'jittery', origin, repo: 'acme/jittery', params: { max_concurrent_requests: '4', requests_per_second_limit: '1000', rate_control_jitter_min: '120ms', rate_control_jitter_max: '160ms' } });
    const manifest = manifestWith('  params:\n    http_requests_per_second_limit: 2\n    http_rate_control_jitter_min: 0ms\n    http_rate_control_jitter_max: 1ms', datasets);
    await withRuntime(t, { manifest, bundle }, async () => undefined);
    const of = (stamps: readonly Stamp[], repo: string) => stamps.filter((stamp) => stamp.path.startsWith(`/repos/acme/${repo}/`));
    t.is(of(upstream.arrivals, 'fast').length, 8);
    t.is(of(upstream.arrivals, 'slow').length, 8);
    t.true(arrivalsFollowGrants(upstream.arrivals, grants), 'no request reached the upstream before rate control let it go');
    const slow = of(grants, 'slow');
    const slowTimes = slow.map((grant) => Math.round(grant.at - slow[0]!.at));
    // As above, each grant is stamped a little after the limiter let it go: a first request
    // stamped 1 ms late and a third stamped at once put the third (granted exactly 1 s after
    // the first) inside the first's second (a run stamped them at 0, 190 and 1000 ms). A
    // window 100 ms short of a second tolerates that and still catches a third let go early.
    t.true(mostWithin(slow, 900) <= 2, `the runtime default (2/s) applies without an override: ${mostWithin(slow, 900)} within 0.9 s (let go at ${slowTimes.join(', ')} ms)`);
    t.true(slowTimes.at(-1)! >= 2990, `8 requests at 2/s take at least 3 s: ${slowTimes.at(-1)} ms`);
    // The 8 pages are fetched one after another, so how many fit in a second depends on the
    // machine; more than the default's 2 shows the override (100/s) won.
    t.true(mostWithin(of(grants, 'fast'), 1000) >= 3, `the dataset override (100/s) wins over the runtime default: ${mostWithin(of(grants, 'fast'), 1000)} within 1 s`);
    const jittery = of(grants, 'jittery').map((grant) => grant.at);
    const gaps = jittery.slice(1).map((at, index) => at - jittery[index]!);
    t.true(gaps.every((gap) => gap >= 119), `every request waited at least the 120 ms jitter minimum: gaps ${gaps.map(Math.round).join(', ')}`);
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
