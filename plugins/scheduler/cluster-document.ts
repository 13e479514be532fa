import { QuarryError } from '../../core/errors/quarry-error.js';
import type { PartitionValue } from './partition-keys.js';
import './errors.js';

/** The schema version this release writes and reads; another one is refused, never guessed at. */
export const CLUSTER_SCHEMA_VERSION = 1;

/** The object holding membership and ownership, relative to `state_location`. */
export const CLUSTER_DOCUMENT_KEY = 'cluster.json';

export type NodeRole = 'scheduler' | 'executor';

export interface ClusterMember {
  readonly role: NodeRole;
  /** Where other nodes reach its node listener (`host:port`). */
  readonly address: string;
  readonly joined_at: string;
}

export interface PartitionOwnership {
  readonly values: readonly PartitionValue[];
  /** The executor that holds it; null while it waits for an assignment round. */
  readonly owner: string | null;
  readonly assigned_at: string | null;
}

export interface DatasetPartitions {
  /** The `partition_by` texts the partitions were discovered for; a change starts the dataset afresh. */
  readonly partition_by: readonly string[];
  /** By partition id (canonical JSON of the values). */
  readonly partitions: Readonly<Record<string, PartitionOwnership>>;
}

/**
 * `cluster.json`: the one shared truth of a cluster. Each partition has exactly one `owner`
 * field, and the document only changes by compare-and-swap, so no interleaving of schedulers
 * can leave a partition with two owners.
 */
export interface ClusterDocument {
  readonly schema_version: number;
  /** Incremented by every committed change (for logs and status; the store's version guards writes). */
  readonly revision: number;
  readonly members: Readonly<Record<string, ClusterMember>>;
  readonly datasets: Readonly<Record<string, DatasetPartitions>>;
}

export function emptyClusterDocument(): ClusterDocument {
  return { schema_version: CLUSTER_SCHEMA_VERSION, revision: 0, members: {}, datasets: {} };
}

export function encodeClusterDocument(document: ClusterDocument): Buffer {
  return Buffer.from(`${JSON.stringify(document, null, 1)}\n`);
}

export function decodeClusterDocument(body: Buffer, location: string): ClusterDocument {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new QuarryError('CLUSTER_STATE_INVALID', `${location}${CLUSTER_DOCUMENT_KEY} is not JSON: ${(error as Error).message}`);
  }
  const document = parsed as Partial<ClusterDocument> | null;
  if (typeof document !== 'object' || document === null || typeof document.members !== 'object' || typeof document.datasets !== 'object') {
    throw new QuarryError('CLUSTER_STATE_INVALID', `${location}${CLUSTER_DOCUMENT_KEY} is not a cluster document (expected schema_version, revision, members and datasets)`);
  }
  if (document.schema_version !== CLUSTER_SCHEMA_VERSION) {
    throw new QuarryError('CLUSTER_STATE_INVALID', `${location}${CLUSTER_DOCUMENT_KEY} has schema_version ${String(document.schema_version)}; this release reads ${CLUSTER_SCHEMA_VERSION} only`);
  }
  return document as ClusterDocument;
}

/** Partitions owned per executor, over all datasets. */
export function ownedPartitionCounts(document: ClusterDocument): Map<string, number> {
  const counts = new Map<string, number>();
  for (const dataset of Object.values(document.datasets)) {
    for (const partition of Object.values(dataset.partitions)) {
      if (partition.owner !== null) counts.set(partition.owner, (counts.get(partition.owner) ?? 0) + 1);
    }
  }
  return counts;
}

/** The partitions (values) of `dataset` that `executor` owns. */
export function partitionsOwnedBy(document: ClusterDocument, dataset: string, executor: string): PartitionValue[][] {
  const entry = document.datasets[dataset];
  if (!entry) return [];
  return Object.values(entry.partitions).filter((partition) => partition.owner === executor).map((partition) => [...partition.values]);
}
