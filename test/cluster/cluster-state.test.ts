import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { openObjectStore } from '../../core/object-store/open-object-store.js';
import type { ObjectStore } from '../../core/object-store/types.js';
import { runAssignmentRound } from '../../plugins/scheduler/assignment-round.js';
import type { OwnershipChange } from '../../plugins/scheduler/assignment.js';
import { CLUSTER_DOCUMENT_KEY, ownedPartitionCounts, type ClusterDocument } from '../../plugins/scheduler/cluster-document.js';
import { ClusterState, heartbeatExpired } from '../../plugins/scheduler/cluster-state.js';
import { Membership } from '../../plugins/scheduler/membership.js';
import { startConditionalS3 } from '../helpers/conditional-s3.js';

const temporaryDirectory = () => mkdtempSync(path.join(os.tmpdir(), 'quarry-cluster-'));
const buckets = (name: string, count: number) => ({ name, partitionBy: [`bucket(${count}, id)`], partitions: Array.from({ length: count }, (_, index) => [index]) });

async function startExecutors(store: ObjectStore, ids: string[], ttlMs: number): Promise<Membership[]> {
  const members = ids.map((id) => new Membership({ state: new ClusterState(store), nodeId: id, role: 'executor', address: `127.0.0.1:${id}`, ttlMs }));
  for (const member of members) await member.start();
  return members;
}

/** Every partition assigned exactly once over all committed rounds, and the document agrees. */
function checkSingleOwnership(t: ExecutionContext, changes: readonly OwnershipChange[], document: ClusterDocument, expected: Record<string, number>) {
  const seen = new Map<string, string>();
  for (const change of changes) {
    const key = `${change.dataset}/${change.partition}`;
    t.false(seen.has(key), `partition ${key} was assigned twice (to ${seen.get(key)} and ${change.owner})`);
    seen.set(key, change.owner);
  }
  const total = Object.values(expected).reduce((sum, count) => sum + count, 0);
  t.is(seen.size, total, 'every partition was assigned by some committed round');
  for (const [dataset, count] of Object.entries(expected)) {
    const partitions = Object.entries(document.datasets[dataset]!.partitions);
    t.is(partitions.length, count);
    for (const [id, partition] of partitions) t.is(partition.owner, seen.get(`${dataset}/${id}`) ?? null, `the document's owner of ${dataset}/${id} is the one assigned`);
  }
  const counts = [...ownedPartitionCounts(document).values()];
  t.true(Math.max(...counts) - Math.min(...counts) <= 1, `balanced: ${counts.join(', ')}`);
}

/** Several schedulers (each its own ClusterState) run many concurrent rounds against one store. */
async function concurrentRounds(t: ExecutionContext, store: () => ObjectStore) {
  const executors = await startExecutors(store(), ['e1', 'e2', 'e3', 'e4'], 60_000);
  const discovered = [buckets('orders', 40), buckets('events', 23)];
  const schedulers = Array.from({ length: 5 }, () => new ClusterState(store()));
  const changes: OwnershipChange[] = [];
  let lostRaces = 0;
  let failed = 0;
  // 5 schedulers x 12 rounds, all at once; at most 4 assignments per round so it takes many commits.
  await Promise.all(schedulers.map(async (scheduler) => {
    for (let round = 0; round < 12; round++) {
      try {
        const result = await runAssignmentRound(scheduler, discovered, { maxAssignmentsPerRound: 4, maxPartitionsPerExecutor: 1000 });
        changes.push(...result.assigned);
        lostRaces += result.lostRaces;
        t.true(result.assigned.length <= 4);
      } catch (error) {
        t.is((error as { code?: string }).code, 'CLUSTER_STATE_CONFLICT', 'a round only fails by losing every bounded retry');
        failed++;
      }
    }
  }));
  // Let the last partitions land if the concurrent rounds ran out first.
  for (let round = 0; round < 20; round++) changes.push(...(await runAssignmentRound(schedulers[0]!, discovered, { maxAssignmentsPerRound: 4, maxPartitionsPerExecutor: 1000 })).assigned);
  t.log(`${changes.length} assignments, ${lostRaces} lost races retried, ${failed} rounds gave up`);
  t.true(lostRaces > 0, 'the rounds really raced');
  checkSingleOwnership(t, changes, await schedulers[0]!.read(), { orders: 40, events: 23 });
  for (const executor of executors) await executor.stop();
}

test('file://: many concurrent rounds of several schedulers never give a partition two owners', async (t) => {
  const root = temporaryDirectory();
  try {
    await concurrentRounds(t, () => new FileObjectStore(root));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('s3:// (If-Match / If-None-Match endpoint): many concurrent rounds never give a partition two owners', async (t) => {
  const s3 = await startConditionalS3();
  try {
    const params = { objstore_endpoint: s3.endpoint, objstore_key: 'test', objstore_secret: 'test', objstore_region: 'us-east-1' };
    await concurrentRounds(t, () => openObjectStore('s3://cluster/state/', params, '/'));
    t.true(s3.preconditionFailures() > 0, 'the endpoint refused stale conditional writes');
  } finally {
    await s3.close();
  }
});

test('file://: schedulers in separate processes never give a partition two owners', async (t) => {
  const root = temporaryDirectory();
  try {
    const executors = await startExecutors(new FileObjectStore(root), ['e1', 'e2', 'e3'], 60_000);
    const worker = path.join(path.dirname(fileURLToPath(import.meta.url)), 'round-worker.ts');
    // The workers wait for this file, created once all are loaded, so their rounds overlap.
    const goFile = path.join(root, 'go');
    const release = setInterval(() => {
      if (readdirSync(root).filter((name) => name.startsWith('ready-')).length === 3) {
        writeFileSync(goFile, '');
        clearInterval(release);
      }
    }, 20);
    const outputs = await Promise.all(Array.from({ length: 3 }, () => new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', worker], { env: { ...process.env, STORE_ROOT: root, PARTITIONS: '60', GO_FILE: goFile }, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      // 'close', not 'exit': 'exit' can come before the last of stdout has been read.
      child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`round worker exited with ${code}`))));
    })));
    const changes = outputs.flatMap((output) => (JSON.parse(output) as { assigned: OwnershipChange[] }).assigned);
    const perProcess = outputs.map((output) => (JSON.parse(output) as { assigned: OwnershipChange[] }).assigned.length);
    t.log(`assignments per process: ${perProcess.join(', ')}`);
    checkSingleOwnership(t, changes, await new ClusterState(new FileObjectStore(root)).read(), { orders: 60 });
    for (const executor of executors) await executor.stop();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

// Serial (ava runs serial tests first, alone): a busy event loop would delay heartbeats past a short ttl.
test.serial('an executor whose heartbeat expires loses its partitions to the others in the next round', async (t) => {
  const root = temporaryDirectory();
  try {
    const store = new FileObjectStore(root);
    const ttlMs = 1_500;
    const [e1, e2, e3] = await startExecutors(store, ['e1', 'e2', 'e3'], ttlMs);
    const state = new ClusterState(store);
    const limits = { maxAssignmentsPerRound: 100, maxPartitionsPerExecutor: 1000 };
    await runAssignmentRound(state, [buckets('orders', 12)], limits);
    t.deepEqual(Object.fromEntries(ownedPartitionCounts(await state.read())), { e1: 4, e2: 4, e3: 4 });
    // e2 stops beating without leaving (like kill -9): live until its ttl passes, then orphaned.
    await e2!.stop(false);
    const stillLive = await runAssignmentRound(state, [], limits);
    t.deepEqual(stillLive.liveExecutors, ['e1', 'e2', 'e3']);
    t.deepEqual(stillLive.assigned, []);
    await new Promise((resolve) => setTimeout(resolve, ttlMs + 300));
    t.true(heartbeatExpired(await state.readHeartbeat('e2'), Date.now()));
    const reassigned = await runAssignmentRound(state, [], limits);
    t.deepEqual(reassigned.liveExecutors, ['e1', 'e3']);
    t.is(reassigned.released, 4);
    t.is(reassigned.assigned.length, 4);
    t.true(reassigned.assigned.every((change) => change.previousOwner === 'e2'));
    t.deepEqual(Object.fromEntries(ownedPartitionCounts(await state.read())), { e1: 6, e3: 6 });
    await e1!.stop();
    await e3!.stop();
    t.is(await state.readHeartbeat('e1'), undefined, 'a clean stop deletes the heartbeat');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a change that loses every bounded retry fails with CLUSTER_STATE_CONFLICT; a foreign document is refused', async (t) => {
  const root = temporaryDirectory();
  try {
    const store = new FileObjectStore(root);
    // Another scheduler commits right after each of our reads (a real write to the same store), so
    // every version we read is stale by the time we write.
    const contended: ObjectStore = {
      location: store.location,
      get: async (key) => {
        const read = await store.get(key);
        await store.put(key, read?.body ?? Buffer.from(JSON.stringify({ schema_version: 1, revision: 0, members: {}, datasets: {} })));
        return read;
      },
      put: (key, body) => store.put(key, body),
      putIfAbsent: (key, body) => store.putIfAbsent(key, body),
      putIfMatch: (key, body, version) => store.putIfMatch(key, body, version),
      delete: (key) => store.delete(key),
    };
    const state = new ClusterState(contended, { maxAttempts: 3 });
    let attempts = 0;
    await t.throwsAsync(state.update((current) => {
      attempts++;
      return { document: { ...current }, outcome: undefined };
    }), { code: 'CLUSTER_STATE_CONFLICT', message: /lost the compare-and-swap race 3 times in a row/ });
    t.is(attempts, 3);
    await store.put(CLUSTER_DOCUMENT_KEY, Buffer.from(JSON.stringify({ schema_version: 2, revision: 1, members: {}, datasets: {} })));
    await t.throwsAsync(new ClusterState(store).read(), { code: 'CLUSTER_STATE_INVALID', message: /cluster.json has schema_version 2; this release reads 1 only/ });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
