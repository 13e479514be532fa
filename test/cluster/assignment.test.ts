import test from 'ava';
import { planAssignments, type DiscoveredDataset } from '../../plugins/scheduler/assignment.js';
import { emptyClusterDocument, ownedPartitionCounts, type ClusterDocument } from '../../plugins/scheduler/cluster-document.js';

const buckets = (name: string, count: number): DiscoveredDataset => ({ name, partitionBy: [`bucket(${count}, id)`], partitions: Array.from({ length: count }, (_, index) => [index]) });
const limits = { maxAssignmentsPerRound: 100, maxPartitionsPerExecutor: 1000 };

function owners(document: ClusterDocument, dataset: string): Record<string, string | null> {
  return Object.fromEntries(Object.entries(document.datasets[dataset]!.partitions).map(([id, partition]) => [id, partition.owner]));
}

test('new partitions are spread evenly, one owner each, ties to the smallest executor id', (t) => {
  const plan = planAssignments(emptyClusterDocument(), [buckets('orders', 10)], ['c', 'a', 'b'], limits);
  t.is(plan.assigned.length, 10);
  t.is(plan.unassigned, 0);
  const counts = ownedPartitionCounts(plan.document!);
  t.deepEqual(Object.fromEntries(counts), { a: 4, b: 3, c: 3 });
  t.is(plan.assigned[0]!.owner, 'a');
  t.true(plan.assigned.every((change) => change.previousOwner === null));
});

test('a second round with nothing new changes nothing', (t) => {
  const first = planAssignments(emptyClusterDocument(), [buckets('orders', 6)], ['a', 'b'], limits).document!;
  const second = planAssignments(first, [buckets('orders', 6)], ['a', 'b'], limits);
  t.is(second.document, undefined);
  t.deepEqual(second.assigned, []);
});

test('caps: per round and per executor; what is left waits for the next round', (t) => {
  const capped = planAssignments(emptyClusterDocument(), [buckets('orders', 10)], ['a', 'b'], { maxAssignmentsPerRound: 4, maxPartitionsPerExecutor: 1000 });
  t.is(capped.assigned.length, 4);
  t.is(capped.unassigned, 6);
  const full = planAssignments(emptyClusterDocument(), [buckets('orders', 10)], ['a', 'b'], { maxAssignmentsPerRound: 100, maxPartitionsPerExecutor: 3 });
  t.deepEqual(Object.fromEntries(ownedPartitionCounts(full.document!)), { a: 3, b: 3 });
  t.is(full.unassigned, 4);
  const next = planAssignments(full.document!, [buckets('orders', 10)], ['a', 'b', 'c'], { maxAssignmentsPerRound: 100, maxPartitionsPerExecutor: 3 });
  t.is(next.assigned.length, 3, 'a new executor takes what the others could not');
  t.true(next.assigned.every((change) => change.owner === 'c'));
});

test('partitions of an executor no longer live go to the live ones; live owners keep theirs', (t) => {
  const first = planAssignments(emptyClusterDocument(), [buckets('orders', 9)], ['a', 'b', 'c'], limits).document!;
  const before = owners(first, 'orders');
  const after = planAssignments(first, [], ['a', 'c'], limits);
  t.is(after.released, 3);
  t.is(after.assigned.length, 3);
  t.true(after.assigned.every((change) => change.previousOwner === 'b' && change.owner !== 'b'));
  const now = owners(after.document!, 'orders');
  for (const [id, owner] of Object.entries(before)) if (owner !== 'b') t.is(now[id], owner, `partition ${id} stays with ${owner}`);
  t.deepEqual(Object.fromEntries(ownedPartitionCounts(after.document!)), { a: 5, c: 4 });
});

test('with no live executor partitions are released and wait, never given to a dead one', (t) => {
  const first = planAssignments(emptyClusterDocument(), [buckets('orders', 4)], ['a'], limits).document!;
  const none = planAssignments(first, [], [], limits);
  t.is(none.released, 4);
  t.is(none.unassigned, 4);
  t.true(Object.values(owners(none.document!, 'orders')).every((owner) => owner === null));
});

test('a changed partition_by starts the dataset afresh', (t) => {
  const first = planAssignments(emptyClusterDocument(), [buckets('orders', 4)], ['a', 'b'], limits).document!;
  const changed = planAssignments(first, [buckets('orders', 2)], ['a', 'b'], limits);
  t.deepEqual(Object.keys(changed.document!.datasets['orders']!.partitions).sort(), ['[0]', '[1]']);
  t.deepEqual(changed.document!.datasets['orders']!.partition_by, ['bucket(2, id)']);
});

test('an executor joining after the others took everything gets its share, moved within the round cap', (t) => {
  const first = planAssignments(emptyClusterDocument(), [buckets('orders', 12)], ['a'], limits).document!;
  const capped = planAssignments(first, [buckets('orders', 12)], ['a', 'b', 'c'], { maxAssignmentsPerRound: 3, maxPartitionsPerExecutor: 1000 });
  t.is(capped.assigned.length, 3);
  t.true(capped.assigned.every((change) => change.previousOwner === 'a'));
  const balanced = planAssignments(capped.document!, [buckets('orders', 12)], ['a', 'b', 'c'], limits);
  t.deepEqual(Object.fromEntries(ownedPartitionCounts(balanced.document!)), { a: 4, b: 4, c: 4 });
  t.is(planAssignments(balanced.document!, [buckets('orders', 12)], ['a', 'b', 'c'], limits).document, undefined, 'balanced: nothing moves');
});
