import { QuarryError } from '../../core/errors/quarry-error.js';
import type { Manifest } from '../../core/manifest/types.js';
import type { ClusterNodeOptions } from '../../core/plugins/types.js';
import type { NodeRole } from './cluster-document.js';
import { parsePartitionBy, type PartitionKey } from './partition-keys.js';
import './errors.js';

/** A dataset the cluster partitions: its name, SQL table and parsed keys. */
export interface PartitionedDataset {
  readonly name: string;
  readonly table: string;
  readonly partitionBy: readonly string[];
  readonly keys: readonly PartitionKey[];
  /** The live copy of its source a scheduler reads to discover expression partitions. */
  readonly discoveryName: string;
}

/** The node's role: the flag, else scheduler when the manifest has `runtime.scheduler`, else none (a single node). */
export function clusterRole(cluster: ClusterNodeOptions, hasSchedulerSection: boolean): NodeRole | undefined {
  if (cluster.role !== undefined) return cluster.role;
  if (cluster.schedulerAddresses.length > 0) return 'executor';
  return hasSchedulerSection ? 'scheduler' : undefined;
}

/**
 * Checks a manifest for cluster mode and returns what it partitions. Errors (start-up stops):
 * a scheduler without `runtime.scheduler`, an accelerated dataset without `partition_by`, a
 * `partition_by` that does not parse. Warnings: `runtime.scheduler` on an executor.
 */
export function checkClusterManifest(manifest: Manifest, role: NodeRole | undefined, hasSchedulerSection: boolean): { datasets: PartitionedDataset[]; warnings: string[] } {
  const warnings: string[] = [];
  if (role === 'executor' && hasSchedulerSection) {
    warnings.push('runtime.scheduler applies only to a scheduler; this node runs as an executor (--role executor), so the section is ignored');
  }
  if (role === 'scheduler' && !hasSchedulerSection) {
    throw new QuarryError('CLUSTER_CONFIG_INVALID', 'runtime.scheduler.state_location is required on a scheduler (--role scheduler): the object-store root of the shared cluster state, e.g. file:///var/lib/quarry/cluster/ or s3://my-bucket/quarry/cluster/');
  }
  const datasets: PartitionedDataset[] = [];
  for (const dataset of manifest.datasets) {
    const acceleration = dataset.acceleration;
    if (!acceleration?.enabled) continue;
    if (acceleration.partition_by === undefined) {
      if (role !== undefined) {
        throw new QuarryError('CLUSTER_CONFIG_INVALID', `Accelerated dataset "${dataset.name}" has no partition keys configured: in cluster mode every accelerated dataset declares acceleration.partition_by (a column, a list of expressions, or bucket(N, column))`, { details: { dataset: dataset.name } });
      }
      continue;
    }
    const keys = parsePartitionBy(dataset.name, acceleration.partition_by);
    if (role === undefined) {
      warnings.push(`dataset "${dataset.name}": acceleration.partition_by has no effect on a single node (it applies in cluster mode)`);
      continue;
    }
    const discoveryName = `cluster_source.${dataset.name.replaceAll('.', '__')}`;
    datasets.push({ name: dataset.name, table: tableName(dataset.name), partitionBy: keys.map((key) => key.text), keys, discoveryName });
  }
  return { datasets, warnings };
}

/** `schema.table` or `table`, each part quoted. */
export function tableName(name: string): string {
  return name.split('.').map((part) => `"${part.replaceAll('"', '""')}"`).join('.');
}
