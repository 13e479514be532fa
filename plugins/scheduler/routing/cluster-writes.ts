import type { DatasetWriteTarget, StagedRows } from '../../../core/engine/engine-api.js';
import type { Logger } from '../../../core/log.js';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { FlightSqlClient } from '../../../core/flight/client/flight-sql-client.js';
import type { ExecutorConnector } from './executor-client.js';
import type { PartitionedDataset } from '../cluster-config.js';
import type { ClusterState } from '../cluster-state.js';
import { partitionId, partitionsPredicate, toPartitionValue, type PartitionValue } from '../partition-keys.js';
import '../errors.js';
import { PARTITIONS_HEADER, readClusterView } from './cluster-source.js';

/**
 * Writes to a partitioned dataset on a scheduler (INSERT, Flight ingest): the engine stages the
 * rows; each row's partition is computed with the same key SQL the executors load by, rows are
 * grouped by the partition's owner and each group is ingested (Flight SQL CommandStatementIngest)
 * into that executor's acceleration table. A row whose partition has no live owner (or is not
 * in the cluster document yet) fails the whole write before any row is sent.
 */
export class ClusterWriteTarget implements DatasetWriteTarget {
  readonly #dataset: PartitionedDataset;
  readonly #state: ClusterState;
  readonly #log: Logger;
  readonly #clients = new Map<string, FlightSqlClient>();

  readonly #connect: ExecutorConnector;

  constructor(dataset: PartitionedDataset, state: ClusterState, log: Logger, connect: ExecutorConnector) {
    this.#dataset = dataset;
    this.#connect = connect;
    this.#state = state;
    this.#log = log;
  }

  async write(staged: StagedRows, signal: AbortSignal): Promise<number> {
    const keys = this.#dataset.keys;
    const groups = await staged.rows(`SELECT ${keys.map((key, index) => `${key.sql} AS k${index}`).join(', ')}, count(*) AS n FROM ${staged.table} GROUP BY ALL`);
    if (groups.length === 0) return 0;
    const view = await readClusterView(this.#state, this.#dataset.name);
    const owners = new Map(view.partitions.map((partition) => [partition.id, partition.owner]));
    const byOwner = new Map<string, PartitionValue[][]>();
    const orphaned: string[] = [];
    for (const group of groups) {
      const values = keys.map((_, index) => toPartitionValue(group[`k${index}`]));
      const id = partitionId(values);
      const owner = owners.get(id);
      if (owner === undefined || owner === null || !view.live.has(owner) || !view.addresses.get(owner)) {
        orphaned.push(`${id}${owner === undefined ? ' (not assigned yet)' : ''}`);
        continue;
      }
      byOwner.set(owner, [...(byOwner.get(owner) ?? []), values]);
    }
    if (orphaned.length > 0) {
      throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `write refused: ${orphaned.length} partition(s) of dataset "${this.#dataset.name}" written to have no live executor: ${orphaned.slice(0, 10).join(', ')}${orphaned.length > 10 ? ', ...' : ''}; no row was written (partitions are assigned within one partition_assignment_interval)`, { details: { dataset: this.#dataset.name, partitions: orphaned.slice(0, 100) } });
    }
    const [schemaName, table] = this.#dataset.name.includes('.') ? this.#dataset.name.split('.', 2) as [string, string] : [undefined, this.#dataset.name];
    // Every owner is asked first whether it holds its partitions (a share still loading after a
    // move would be replaced by the load), then the groups go out in parallel, one transaction each.
    const legs = [...byOwner].map(([owner, partitions]) => ({ owner, partitions, client: this.#client(view.addresses.get(owner)!) }));
    await Promise.all(legs.map(async ({ owner, partitions, client }) => {
      const headers = { [PARTITIONS_HEADER]: JSON.stringify({ dataset: this.#dataset.name, partitions: partitions.map(partitionId) }) };
      try {
        const stream = await client.queryStream(`SELECT 1 FROM ${this.#dataset.table} WHERE FALSE`, { signal, headers });
        for await (const _ of stream.batches);
      } catch (error) {
        throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `write refused: executor ${owner} cannot take rows of dataset "${this.#dataset.name}" now: ${(error as Error).message}; no row was written`, { cause: error });
      }
    }));
    // The staged rows are read one group at a time (one result at a time on the engine's connection).
    const uploads: Array<Awaited<ReturnType<StagedRows['batches']>>> = [];
    for (const { partitions } of legs) uploads.push(await staged.batches(`SELECT * FROM ${staged.table} WHERE ${partitionsPredicate(keys, partitions)}`));
    const written = await Promise.allSettled(legs.map(async ({ owner, partitions, client }, index) => {
      const { schema, batches } = uploads[index]!;
      const rows = await client.ingest(table, { schema, batches }, { schema: schemaName });
      this.#log.debug('cluster write', { dataset: this.#dataset.name, executor: owner, partitions: partitions.length, rows: Number(rows) });
      return Number(rows);
    }));
    const failed = legs.flatMap((leg, index) => (written[index]!.status === 'rejected' ? [{ owner: leg.owner, reason: (written[index] as PromiseRejectedResult).reason as Error }] : []));
    if (failed.length > 0) {
      const landed = legs.filter((_, index) => written[index]!.status === 'fulfilled').map((leg) => leg.owner);
      throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `write to dataset "${this.#dataset.name}" failed on executor ${failed.map((failure) => failure.owner).join(', ')}: ${failed[0]!.reason.message}; ${landed.length > 0 ? `the rows for executor ${landed.join(', ')} were written (each executor's share is its own transaction)` : 'no row was written'}`, { cause: failed[0]!.reason });
    }
    return written.reduce((sum, result) => sum + (result.status === 'fulfilled' ? result.value : 0), 0);
  }

  close(): void {
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }

  #client(address: string): FlightSqlClient {
    let client = this.#clients.get(address);
    if (!client) {
      client = this.#connect(address);
      this.#clients.set(address, client);
    }
    return client;
  }
}
