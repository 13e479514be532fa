import type { RecordBatch, Schema } from 'apache-arrow';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FetchSource, ScanRequest } from '../../../core/engine/sources/connector.js';
import type { Logger } from '../../../core/log.js';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { FlightSqlClient } from '../../../core/flight/client/flight-sql-client.js';
import type { PartitionedDataset } from '../cluster-config.js';
import type { ClusterState } from '../cluster-state.js';
import { partitionId, partitionsPredicate, type PartitionValue } from '../partition-keys.js';
import '../errors.js';
import { duckdbColumnType } from '../../../core/engine/fetch/duckdb-column-types.js';
import { partitionFilter, type BucketsOf } from './partition-pruning.js';
import { scanLiteral } from './scan-sql.js';
import { executorScanSql } from './scan-sql.js';
import type { ExecutorConnector } from './executor-client.js';

/** Names the partitions a scheduler's scan leg expects the executor to hold. */
export const PARTITIONS_HEADER = 'x-quarry-cluster-partitions';

/** How long a scheduler trusts its read of ownership and liveness (one object-store read per scan at most this often). */
const VIEW_TTL_MS = 500;

export interface ClusterView {
  readonly at: number;
  readonly live: ReadonlySet<string>;
  readonly addresses: ReadonlyMap<string, string>;
  readonly partitions: ReadonlyArray<{ id: string; values: readonly PartitionValue[]; owner: string | null }>;
}

/**
 * A partitioned dataset on a scheduler: a fetch source whose scan is the union of one Flight
 * SQL query per executor that owns wanted partitions, each carrying its partition predicate
 * and the query's own columns, filters and limit. The engine above runs joins, aggregates
 * and sorts. Partitions ruled out by filters on the partition key are not asked for at all; a
 * wanted partition without a live owner fails the scan, naming it.
 */
export class ClusterSource implements FetchSource {
  readonly kind = 'fetch';
  readonly #dataset: PartitionedDataset;
  readonly #state: ClusterState;
  readonly #bucketsOf: BucketsOf;
  readonly #clients = new Map<string, FlightSqlClient>();
  #view: ClusterView | undefined;
  #columns: string[] = [];

  #schema: Schema | undefined;

  /** `runInternal` computes buckets of filter values with the engine's own hash(), as executors do. */
  readonly #log: Logger;
  /** Opens clients to executors' node listeners (mutual TLS). */
  readonly #connect: ExecutorConnector;

  constructor(dataset: PartitionedDataset, state: ClusterState, runInternal: (sql: string) => Promise<Array<Record<string, unknown>>>, log: Logger, connect: ExecutorConnector) {
    this.#dataset = dataset;
    this.#connect = connect;
    this.#log = log;
    this.#state = state;
    this.#bucketsOf = async (key, values) => {
      const field = this.#schema?.fields.find((candidate) => candidate.name === key.column);
      if (field === undefined || values.length === 0) return undefined;
      const type = duckdbColumnType(field, dataset.name);
      const rows = await runInternal(`SELECT DISTINCT CAST(hash(CAST(v AS ${type})) % ${key.buckets} AS INTEGER) AS b FROM (VALUES ${values.map((value) => `(${scanLiteral(value)})`).join(', ')}) AS t(v)`).catch(() => undefined);
      return rows === undefined ? undefined : new Set(rows.map((row) => Number(row['b'])));
    };
  }

  /** Asked once at registration: from the first live executor (waits for one, within the signal). */
  async schema(signal: AbortSignal): Promise<Schema> {
    for (;;) {
      const view = await this.#read(true);
      const executor = [...view.live].find((id) => view.addresses.get(id));
      if (executor !== undefined) {
        const schema = await this.#client(view.addresses.get(executor)!).querySchema(`SELECT * FROM ${this.#dataset.table}`);
        this.#columns = schema.fields.map((field) => field.name);
        this.#schema = schema;
        return schema;
      }
      if (signal.aborted) throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `dataset "${this.#dataset.name}": no live executor answered for its columns`);
      await sleep(250, undefined, { signal }).catch(() => {});
    }
  }

  async *scan(request: ScanRequest): AsyncIterable<RecordBatch> {
    const view = await this.#read(false);
    if (view.partitions.length === 0) {
      throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `Cannot execute query: dataset "${this.#dataset.name}" has no partitions yet (the scheduler discovers and assigns them each partition_assignment_interval once executors are live)`);
    }
    const wanted = await partitionFilter(this.#dataset.keys, request.filters ?? [], this.#bucketsOf);
    const byOwner = new Map<string, PartitionValue[][]>();
    const orphaned: string[] = [];
    for (const partition of view.partitions) {
      if (!wanted(partition.values)) continue;
      if (partition.owner === null || !view.live.has(partition.owner) || !view.addresses.get(partition.owner)) {
        orphaned.push(partition.id);
        continue;
      }
      const list = byOwner.get(partition.owner) ?? [];
      list.push([...partition.values]);
      byOwner.set(partition.owner, list);
    }
    if (orphaned.length > 0) {
      throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `Cannot execute query: ${orphaned.length} partition(s) of dataset "${this.#dataset.name}" have no live executor: ${orphaned.slice(0, 10).join(', ')}${orphaned.length > 10 ? ', ...' : ''}; they are reassigned within one partition_assignment_interval`, { details: { dataset: this.#dataset.name, partitions: orphaned.slice(0, 100) } });
    }
    this.#log.debug('cluster scan', { dataset: this.#dataset.name, executors: [...byOwner.keys()].sort().join(','), partitions: [...byOwner.values()].reduce((sum, list) => sum + list.length, 0), of: view.partitions.length });
    // All legs start at once (the executors work in parallel); batches are passed on leg by leg.
    const legs = await Promise.all([...byOwner].map(async ([owner, partitions]) => {
      const sql = executorScanSql(this.#dataset.table, this.#columns, request, partitionsPredicate(this.#dataset.keys, partitions));
      try {
        // The executor checks it holds these partitions before it answers (a share that just moved is refused, never empty).
        const headers = { [PARTITIONS_HEADER]: JSON.stringify({ dataset: this.#dataset.name, partitions: partitions.map(partitionId) }) };
        return { owner, stream: await this.#client(view.addresses.get(owner)!).queryStream(sql, { signal: request.signal, headers }) };
      } catch (error) {
        throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `dataset "${this.#dataset.name}": executor ${owner} failed its share of the scan: ${(error as Error).message}`, { cause: error });
      }
    }));
    let remaining = request.limit;
    for (const { owner, stream } of legs) {
      let rows = 0;
      try {
        for await (const batch of stream.batches) {
          if (remaining !== undefined && remaining <= 0) break;
          rows += batch.numRows;
          if (remaining !== undefined) remaining -= batch.numRows;
          yield batch;
        }
      } finally {
        stream.cancel();
        this.#log.debug('cluster leg', { dataset: this.#dataset.name, executor: owner, rows });
      }
    }
  }

  async close(): Promise<void> {
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

  async #read(fresh: boolean): Promise<ClusterView> {
    if (!fresh && this.#view && Date.now() - this.#view.at < VIEW_TTL_MS) return this.#view;
    this.#view = await readClusterView(this.#state, this.#dataset.name);
    return this.#view;
  }
}

/** One read of who owns the dataset's partitions, which executors are live and where they listen. */
export async function readClusterView(state: ClusterState, dataset: string): Promise<ClusterView> {
  const document = await state.read();
  const live = new Set(await state.liveMembers(document, 'executor'));
  const addresses = new Map(Object.entries(document.members).map(([id, member]) => [id, member.address]));
  const entry = document.datasets[dataset];
  const partitions = Object.entries(entry?.partitions ?? {}).map(([id, partition]) => ({ id, values: partition.values, owner: partition.owner }));
  return { at: Date.now(), live, addresses, partitions };
}
