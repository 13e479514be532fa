import type { DatasetWriteTarget, StagedRows } from '../../../core/engine/engine-api.js';
import type { Logger } from '../../../core/log.js';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { FlightSqlClient } from '../../../core/flight/client/flight-sql-client.js';
import type { PartitionedDataset } from '../cluster-config.js';
import type { ClusterState } from '../cluster-state.js';
import type { ExecutorClient } from '../node/node-client.js';
import type { WriteEntry } from '../node/node-protocol.js';
import { partitionId, partitionsPredicate, toPartitionValue, type PartitionValue } from '../partition-keys.js';
import { toArrowIpc } from '../writes/arrow-ipc.js';
import type { WriteLog } from '../writes/write-log.js';
import '../errors.js';
import { PARTITIONS_HEADER, readClusterView } from './cluster-source.js';
import type { ExecutorConnector } from './executor-client.js';

export interface ClusterWriteTargetOptions {
  readonly dataset: PartitionedDataset;
  readonly state: ClusterState;
  readonly writeLog: WriteLog;
  readonly log: Logger;
  /** Flight SQL clients of executors' node listeners (the holding check before a write). */
  readonly connect: ExecutorConnector;
  /** `quarry.cluster.Executor` clients of executors' node listeners (applying a write). */
  readonly executor: (address: string) => ExecutorClient;
}

/**
 * Writes to a partitioned dataset on a scheduler (INSERT, Flight ingest): the engine stages the
 * rows; each row's partition is computed with the same key SQL the executors load by, and rows
 * are grouped by the partition's owner. A row whose partition has no live owner (or is not in
 * the cluster document yet), or an owner that does not hold its partitions now, fails the whole
 * write before anything is kept. Then each owner's rows are recorded in the write log (the
 * state store: durable, and what any later owner of those partitions loads), and only then
 * applied to the owners' tables. An owner that fails to apply its rows has them taken out of
 * the log again; the write then fails, naming which owners' rows were written.
 */
export class ClusterWriteTarget implements DatasetWriteTarget {
  readonly #options: ClusterWriteTargetOptions;
  readonly #clients = new Map<string, FlightSqlClient>();

  constructor(options: ClusterWriteTargetOptions) {
    this.#options = options;
  }

  async write(staged: StagedRows, signal: AbortSignal): Promise<number> {
    const { dataset, writeLog, log } = this.#options;
    const keys = dataset.keys;
    const groups = await staged.rows(`SELECT ${keys.map((key, index) => `${key.sql} AS k${index}`).join(', ')}, count(*) AS n FROM ${staged.table} GROUP BY ALL`);
    if (groups.length === 0) return 0;
    const view = await readClusterView(this.#options.state, dataset.name);
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
      throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `write refused: ${orphaned.length} partition(s) of dataset "${dataset.name}" written to have no live executor: ${orphaned.slice(0, 10).join(', ')}${orphaned.length > 10 ? ', ...' : ''}; no row was written (partitions are assigned within one partition_assignment_interval)`, { details: { dataset: dataset.name, partitions: orphaned.slice(0, 100) } });
    }
    // Every owner is asked first whether it holds its partitions (a share still loading after a
    // move is refused), so a write that cannot land everywhere keeps nothing.
    const legs = [...byOwner].map(([owner, partitions]) => ({ owner, address: view.addresses.get(owner)!, partitions, ids: partitions.map(partitionId) }));
    await Promise.all(legs.map(async ({ owner, address, ids }) => {
      const headers = { [PARTITIONS_HEADER]: JSON.stringify({ dataset: dataset.name, partitions: ids }) };
      try {
        const stream = await this.#client(address).queryStream(`SELECT 1 FROM ${dataset.table} WHERE FALSE`, { signal, headers });
        for await (const _ of stream.batches);
      } catch (error) {
        throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `write refused: executor ${owner} cannot take rows of dataset "${dataset.name}" now: ${(error as Error).message}; no row was written`, { cause: error });
      }
    }));
    // The staged rows are read one group at a time (one result at a time on the engine's connection).
    const pieces: Array<{ partitions: string[]; rows: number; body: Buffer }> = [];
    for (const leg of legs) {
      const { schema, batches } = await staged.batches(`SELECT * FROM ${staged.table} WHERE ${partitionsPredicate(keys, leg.partitions)}`);
      pieces.push({ partitions: leg.ids, rows: batches.reduce((sum, batch) => sum + batch.numRows, 0), body: toArrowIpc(schema, batches) });
    }
    let entries: WriteEntry[];
    try {
      entries = await writeLog.record(dataset.name, pieces);
    } catch (error) {
      throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `write to dataset "${dataset.name}" refused: its rows could not be recorded in the write log (${(error as Error).message}); no row was written`, { cause: error });
    }
    const applied = await Promise.allSettled(legs.map(async (leg, index) => {
      const reply = await this.#options.executor(leg.address).applyWrite({ dataset: dataset.name, entry: entries[index]!, body: pieces[index]!.body });
      log.debug('cluster write', { dataset: dataset.name, executor: leg.owner, partitions: leg.partitions.length, rows: pieces[index]!.rows, applied: reply.applied });
    }));
    const failed = legs.flatMap((leg, index) => (applied[index]!.status === 'rejected' ? [{ leg, entry: entries[index]!, reason: (applied[index] as PromiseRejectedResult).reason as Error }] : []));
    if (failed.length > 0) {
      const landed = legs.filter((_, index) => applied[index]!.status === 'fulfilled').map((leg) => leg.owner);
      // The failed owners' rows leave the log again, so no later load brings back rows the client was told failed.
      const removed = await writeLog.remove(dataset.name, failed.map((failure) => failure.entry.id)).then(() => true, (error: unknown) => {
        log.warn('a failed write could not be taken out of the write log', { dataset: dataset.name, error: (error as Error).message });
        return false;
      });
      const unwritten = failed.map((failure) => failure.leg.owner).join(', ');
      const fate = removed ? 'no row was written' : `they are in the write log, and appear once ${failed.length === 1 ? 'that executor reloads its share' : 'those executors reload their shares'}`;
      throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `write to dataset "${dataset.name}" failed on executor ${unwritten}: ${failed[0]!.reason.message}; for ${failed.length === 1 ? 'it' : 'them'} ${fate}; ${landed.length > 0 ? `the rows for executor ${landed.join(', ')} were written (each executor's share is its own transaction)` : 'no row was written elsewhere'}`, { cause: failed[0]!.reason });
    }
    return pieces.reduce((sum, piece) => sum + piece.rows, 0);
  }

  close(): void {
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }

  #client(address: string): FlightSqlClient {
    let client = this.#clients.get(address);
    if (!client) {
      client = this.#options.connect.flightSql(address);
      this.#clients.set(address, client);
    }
    return client;
  }
}
