import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../../core/log.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { FileObjectStore } from '../../core/object-store/file-object-store.js';
import { ClusterState } from '../../plugins/scheduler/cluster-state.js';
import { parsePartitionBy, partitionId } from '../../plugins/scheduler/partition-keys.js';
import { ClusterSource } from '../../plugins/scheduler/routing/cluster-source.js';

// Which executors a scheduler's scan asks, read from a real cluster document on a file://
// state location: live owners of the wanted partitions; a wanted partition whose owner's
// heartbeat is gone (or that has no owner yet) fails the scan with an error naming it.
// The legs are planned only: no executor is contacted (the connector refuses if asked).

const dataset = { name: 'events', table: 'events', partitionBy: ['region'], keys: parsePartitionBy('events', 'region'), discoveryName: 'events' };

async function withSource(run: (source: ClusterSource) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-legs-'));
  try {
    const state = new ClusterState(new FileObjectStore(directory));
    await state.join('executor-a', 'executor', '127.0.0.1:7001');
    await state.join('executor-b', 'executor', '127.0.0.1:7002');
    // executor-a beats; executor-b's last beat is older than its ttl (killed).
    await state.writeHeartbeat({ node_id: 'executor-a', role: 'executor', address: '127.0.0.1:7001', written_at_ms: Date.now(), ttl_ms: 60_000 });
    await state.writeHeartbeat({ node_id: 'executor-b', role: 'executor', address: '127.0.0.1:7002', written_at_ms: Date.now() - 10_000, ttl_ms: 2_000 });
    const owned = (values: string[], owner: string | null) => [partitionId(values), { values, owner, assigned_at: owner ? new Date().toISOString() : null }] as const;
    await state.update((current) => ({
      document: {
        ...current,
        datasets: { events: { partition_by: ['region'], partitions: Object.fromEntries([owned(['eu'], 'executor-a'), owned(['us'], 'executor-b'), owned(['apac'], null), owned(['latam'], 'executor-a')]) } },
      },
      outcome: undefined,
    }));
    const refuse = () => {
      throw new Error('planning legs must not contact an executor');
    };
    const connector = { flightSql: refuse, doGet: refuse };
    await run(new ClusterSource(dataset, state, async () => [], createLogger({ sink: () => undefined }), connector));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test('a wanted partition without a live owner fails the scan, naming every such partition and the dataset', async (t) => {
  await withSource(async (source) => {
    const error = await t.throwsAsync(source.legs([]), { instanceOf: QuarryError });
    t.is(error.code, 'CLUSTER_PARTITION_UNAVAILABLE');
    t.regex(error.message, /2 partition\(s\) of dataset "events" have no live executor/);
    t.true(error.message.includes(partitionId(['us'])), error.message);
    t.true(error.message.includes(partitionId(['apac'])), error.message);
    t.false(error.message.includes(partitionId(['eu'])), 'a partition with a live owner is not named');
    t.regex(error.message, /reassigned within one partition_assignment_interval/);
  });
});

test('a filter on the partition key asks only the live owner of the matching partitions, even while others are orphaned', async (t) => {
  await withSource(async (source) => {
    const { legs, of } = await source.legs([{ column: 'region', operator: 'IN', values: ['eu', 'latam'] }]);
    t.is(of, 4);
    t.deepEqual(legs.map((leg) => ({ owner: leg.owner, address: leg.address, partitions: leg.partitions })), [
      { owner: 'executor-a', address: '127.0.0.1:7001', partitions: [['eu'], ['latam']] },
    ]);
    const orphanedOnly = await t.throwsAsync(source.legs([{ column: 'region', operator: '=', value: 'us' }]));
    t.regex(orphanedOnly.message, /1 partition\(s\) of dataset "events" have no live executor: \["us"\]/);
  });
});
