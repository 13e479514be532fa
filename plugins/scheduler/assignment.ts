import { ownedPartitionCounts, type ClusterDocument, type DatasetPartitions, type PartitionOwnership } from './cluster-document.js';
import { partitionId, type PartitionValue } from './partition-keys.js';

/** The partitions a round discovered for one dataset. */
export interface DiscoveredDataset {
  readonly name: string;
  readonly partitionBy: readonly string[];
  readonly partitions: readonly (readonly PartitionValue[])[];
}

export interface AssignmentLimits {
  readonly maxAssignmentsPerRound: number;
  readonly maxPartitionsPerExecutor: number;
}

export interface OwnershipChange {
  readonly dataset: string;
  readonly partition: string;
  readonly owner: string;
  /** The executor it was taken from (its heartbeat expired), or null for a new partition. */
  readonly previousOwner: string | null;
}

export interface AssignmentPlan {
  /** The document after the round; undefined when nothing changed. */
  readonly document: ClusterDocument | undefined;
  readonly assigned: readonly OwnershipChange[];
  /** Partitions taken from executors whose heartbeat expired (some may be reassigned in `assigned`). */
  readonly released: number;
  /** Partitions still without an owner after the round (caps reached, or no live executor). */
  readonly unassigned: number;
}

/**
 * One assignment round, decided from the document as it is now (a lost race decides again
 * from the fresh one). Partitions of executors no longer live are released; new and released
 * partitions go, in a deterministic order, to the live executor owning fewest partitions (ties
 * to the smallest id), within both caps. Then, while the round's cap allows, partitions move
 * from the most to the least loaded live executor until they differ by at most one.
 */
export function planAssignments(current: ClusterDocument, discovered: readonly DiscoveredDataset[], liveExecutors: readonly string[], limits: AssignmentLimits, now = new Date()): AssignmentPlan {
  const live = new Set(liveExecutors);
  const at = now.toISOString();
  const datasets: Record<string, DatasetPartitions> = { ...current.datasets };
  let changed = false;
  let released = 0;
  const releasedFrom = new Map<string, string>();

  for (const found of discovered) {
    const existing = datasets[found.name];
    const sameKeys = existing !== undefined && sameTexts(existing.partition_by, found.partitionBy);
    const partitions: Record<string, PartitionOwnership> = sameKeys ? { ...existing.partitions } : {};
    if (!sameKeys) changed = true;
    for (const values of found.partitions) {
      const id = partitionId(values);
      if (partitions[id] === undefined) {
        partitions[id] = { values: [...values], owner: null, assigned_at: null };
        changed = true;
      }
    }
    datasets[found.name] = { partition_by: [...found.partitionBy], partitions };
  }
  // Release what executors no longer live hold (in every dataset, discovered this round or not).
  for (const [name, entry] of Object.entries(datasets)) {
    let partitions: Record<string, PartitionOwnership> | undefined;
    for (const [id, partition] of Object.entries(entry.partitions)) {
      if (partition.owner !== null && !live.has(partition.owner)) {
        partitions ??= { ...entry.partitions };
        partitions[id] = { ...partition, owner: null, assigned_at: null };
        releasedFrom.set(`${name}\u0000${id}`, partition.owner);
        released++;
      }
    }
    if (partitions) {
      datasets[name] = { ...entry, partitions };
      changed = true;
    }
  }

  const load = ownedPartitionCounts({ ...current, datasets });
  const candidates = [...live].sort();
  const assigned: OwnershipChange[] = [];
  let unassigned = 0;
  for (const name of Object.keys(datasets).sort()) {
    const entry = datasets[name]!;
    let partitions: Record<string, PartitionOwnership> | undefined;
    for (const id of Object.keys(entry.partitions).sort()) {
      const partition = entry.partitions[id]!;
      if (partition.owner !== null) continue;
      const owner = assigned.length < limits.maxAssignmentsPerRound ? leastLoaded(candidates, load, limits.maxPartitionsPerExecutor) : undefined;
      if (owner === undefined) {
        unassigned++;
        continue;
      }
      partitions ??= { ...entry.partitions };
      partitions[id] = { ...partition, owner, assigned_at: at };
      load.set(owner, (load.get(owner) ?? 0) + 1);
      assigned.push({ dataset: name, partition: id, owner, previousOwner: releasedFrom.get(`${name}\u0000${id}`) ?? null });
    }
    if (partitions) {
      datasets[name] = { ...entry, partitions };
      changed = true;
    }
  }
  // Rebalance within what the round may still assign: an executor that joined after the
  // others took everything would otherwise stay idle. One partition at a time moves from the
  // most to the least loaded live executor while they differ by more than one.
  while (unassigned === 0 && assigned.length < limits.maxAssignmentsPerRound && candidates.length > 1) {
    const ordered = [...candidates].sort((a, b) => (load.get(a) ?? 0) - (load.get(b) ?? 0) || a.localeCompare(b));
    const lightest = ordered[0]!;
    const heaviest = ordered.at(-1)!;
    if ((load.get(heaviest) ?? 0) - (load.get(lightest) ?? 0) <= 1 || (load.get(lightest) ?? 0) >= limits.maxPartitionsPerExecutor) break;
    const moved = lastOwnedBy(datasets, heaviest);
    if (moved === undefined) break;
    const entry = datasets[moved.dataset]!;
    datasets[moved.dataset] = { ...entry, partitions: { ...entry.partitions, [moved.id]: { ...entry.partitions[moved.id]!, owner: lightest, assigned_at: at } } };
    load.set(heaviest, (load.get(heaviest) ?? 0) - 1);
    load.set(lightest, (load.get(lightest) ?? 0) + 1);
    assigned.push({ dataset: moved.dataset, partition: moved.id, owner: lightest, previousOwner: heaviest });
    changed = true;
  }
  return { document: changed ? { ...current, datasets } : undefined, assigned, released, unassigned };
}

/** The last partition (by dataset, then id) an executor owns: the one a rebalance moves. */
function lastOwnedBy(datasets: Readonly<Record<string, DatasetPartitions>>, executor: string): { dataset: string; id: string } | undefined {
  for (const name of Object.keys(datasets).sort().reverse()) {
    const partitions = datasets[name]!.partitions;
    const id = Object.keys(partitions).sort().reverse().find((candidate) => partitions[candidate]!.owner === executor);
    if (id !== undefined) return { dataset: name, id };
  }
  return undefined;
}

function leastLoaded(candidates: readonly string[], load: ReadonlyMap<string, number>, cap: number): string | undefined {
  let best: string | undefined;
  let bestLoad = Infinity;
  for (const executor of candidates) {
    const owned = load.get(executor) ?? 0;
    if (owned < cap && owned < bestLoad) {
      best = executor;
      bestLoad = owned;
    }
  }
  return best;
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, index) => text === b[index]);
}
