import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startDaemon, type Daemon } from '../helpers/daemon.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { githubIssuesDataset, paginatedIssues } from '../helpers/github-upstream.js';
import { startUpstream } from '../helpers/upstream.js';

const LIMIT_PER_SECOND = 20;
const HAMMER_MS = 30_000;

async function waitReady(daemon: Daemon): Promise<void> {
  const deadline = Date.now() + 60_000;
  while ((await fetch(`${daemon.baseUrl}/v1/ready`).then((response) => response.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error(`quarryd never became ready:\n${daemon.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Three real quarryd processes share one file:// state_location and a 20 req/s limit on one
 * upstream (GitHub-shaped, paginated: every refresh is a stream of page requests). Replica a
 * refreshes three datasets at once, b and c one each, for 30 s. The upstream must see about
 * 20 req/s in total (not 60), and a, with three times the demand, the largest share.
 */
test('three replicas with one file:// state_location share a 20 req/s limit, weighted by demand', async (t) => {
  t.timeout(180_000);
  let origin = '';
  const upstream = await startUpstream(paginatedIssues({ origin: () => origin, pages: 30 }));
  origin = upstream.origin;
  const state = mkdtempSync(path.join(os.tmpdir(), 'quarry-rate-state-'));
  const replicas = { a: 3, b: 1, c: 1 } as const;
  const directories: string[] = [];
  const daemons: Array<{ name: keyof typeof replicas; daemon: Daemon; datasets: string[] }> = [];
  try {
    for (const [name, count] of Object.entries(replicas) as Array<[keyof typeof replicas, number]>) {
      const datasets = Array.from({ length: count }, (_, index) => `${name}_issues_${index}`);
      const manifest = `
version: v2
kind: Spicepod
name: replica-${name}
runtime:
  params:
    http_requests_per_second_limit: ${LIMIT_PER_SECOND}
  source_rate_control:
    state_location: ${pathToFileURL(state).href}/
    refresh_interval: 2s
datasets:${datasets.map((dataset, index) => githubIssuesDataset({ name: dataset, origin, repo: `${name}/repo${index}` })).join('')}
`;
      const directory = writeManifestDirectory({ manifest });
      directories.push(directory);
      daemons.push({ name, daemon: await startDaemon([directory]), datasets });
    }
    await Promise.all(daemons.map(({ daemon }) => waitReady(daemon)));

    const start = performance.timeOrigin + performance.now();
    const deadline = Date.now() + HAMMER_MS;
    const failures: string[] = [];
    let refreshes = 0;
    await Promise.all(
      daemons.flatMap(({ daemon, datasets }) =>
        datasets.map(async (dataset) => {
          while (Date.now() < deadline) {
            const response = await fetch(`${daemon.baseUrl}/v1/datasets/${dataset}/acceleration/refresh`, { method: 'POST' });
            if (response.status !== 201) failures.push(`${dataset}: ${response.status} ${await response.text()}`);
            else refreshes++;
          }
        }),
      ),
    );
    const end = start + HAMMER_MS;
    const inWindow = upstream.arrivals.filter((arrival) => arrival.at >= start && arrival.at < end);
    const byReplica = Object.fromEntries(Object.keys(replicas).map((name) => [name, inWindow.filter((arrival) => arrival.path.startsWith(`/repos/${name}/`)).length])) as Record<keyof typeof replicas, number>;
    const rate = inWindow.length / (HAMMER_MS / 1000);
    t.log(`upstream saw ${inWindow.length} requests in ${HAMMER_MS / 1000} s = ${rate.toFixed(2)} req/s (limit ${LIMIT_PER_SECOND}); by replica ${JSON.stringify(byReplica)}; ${refreshes} refreshes`);
    t.deepEqual(failures, []);
    t.true(rate >= LIMIT_PER_SECOND * 0.85 && rate <= LIMIT_PER_SECOND * 1.15, `total ${rate.toFixed(2)} req/s is within ±15% of ${LIMIT_PER_SECOND}`);
    t.true(byReplica.a > byReplica.b && byReplica.a > byReplica.c, `the replica with three times the demand gets the largest share: ${JSON.stringify(byReplica)}`);
  } finally {
    for (const { daemon } of daemons) daemon.child.kill('SIGTERM');
    await Promise.all(daemons.map(({ daemon }) => daemon.exited));
    await upstream.close();
    for (const directory of directories) rmSync(directory, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  }
});

/**
 * The s3:// path of shared state, end to end: two runtimes lease from one ledger kept in an
 * S3 endpoint that enforces conditional writes (test/helpers/conditional-s3.ts; s3rver
 * ignores them). Both load a 40-page dataset at once under a shared 10 req/s limit.
 */
test('two runtimes share a 10 req/s limit through an s3:// state_location with conditional writes', async (t) => {
  t.timeout(120_000);
  const { startConditionalS3 } = await import('../helpers/conditional-s3.js');
  const { startRuntime } = await import('../helpers/runtime.js');
  const s3 = await startConditionalS3();
  let origin = '';
  const upstream = await startUpstream(paginatedIssues({ origin: () => origin, pages: 40 }));
  origin = upstream.origin;
  const manifest = (name: string) => `
version: v2
kind: Spicepod
name: ${name}
secrets:
  - from: env
    name: env
runtime:
  params:
    http_requests_per_second_limit: 10
  source_rate_control:
    state_location: s3://rate-state/quarry/
    refresh_interval: 1s
    params:
      objstore_endpoint: ${s3.endpoint}
      objstore_region: eu-west-1
      objstore_key: test-key
      objstore_secret: \${ secrets:TEST_OBJSTORE_SECRET }
datasets:${githubIssuesDataset({ name: 'issues', origin, repo: `${name}/repo` })}
`;
  process.env['TEST_OBJSTORE_SECRET'] = 'test-secret';
  const runtimes = await Promise.all(['one', 'two'].map((name) => startRuntime({ manifest: manifest(name), waitForLoad: false })));
  try {
    await Promise.all(runtimes.map(({ runtime }) => runtime.whenLoaded()));
    const times = upstream.arrivals.map((arrival) => arrival.at).sort((a, b) => a - b);
    const span = (times.at(-1)! - times[0]!) / 1000;
    const rate = (times.length - 1) / span;
    t.log(`80 requests over ${span.toFixed(2)} s = ${rate.toFixed(2)} req/s (limit 10 shared); ${s3.puts()} ledger writes, ${s3.preconditionFailures()} lost races retried`);
    t.is(times.length, 80);
    t.true(rate <= 10 * 1.2, `the two runtimes together stay near 10 req/s: ${rate.toFixed(2)}`);
    t.true(rate >= 10 * 0.6, `and use most of it: ${rate.toFixed(2)}`);
    t.true([...s3.objects.keys()].some((key) => key.startsWith('/rate-state/quarry/rate-control/')), 'the ledger lives under the state_location');
    t.true(s3.puts() >= 4, 'each window both replicas lease with a conditional write');
  } finally {
    await Promise.all(runtimes.map(({ runtime }) => runtime.stop()));
    for (const { directory } of runtimes) rmSync(directory, { recursive: true, force: true });
    await upstream.close();
    await s3.close();
    delete process.env['TEST_OBJSTORE_SECRET'];
  }
});
