import type { RecordBatch, Schema } from 'apache-arrow';
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import type { FetchSource, ScanFilter, ScanRequest } from '../../../core/engine/sources/connector.js';
import type { Logger } from '../../../core/log.js';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { FlightSqlClient } from '../../../core/flight/client/flight-sql-client.js';
import type { FlightStream } from '../../../core/flight/client/flight-client.js';
import type { Http2DoGetClient } from '../../../core/flight/client/http2-doget.js';
import { packAny } from '../../../core/flight/flight-any.js';
import { CommandStatementQuerySchema } from '../../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
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

/** One executor's share of a read: the wanted partitions it owns and their SQL predicate. */
export interface ClusterLeg {
  readonly owner: string;
  readonly address: string;
  readonly partitions: readonly PartitionValue[][];
  readonly predicate: string;
  /** The leg asks for every partition its executor owns (as far as the scheduler knows). */
  readonly everything: boolean;
}

/** The Quarry error code a peer answered with (Flight trailers), if any. */
function errorCodeOf(error: unknown): string | undefined {
  const metadata = (error as { metadata?: { get(key: string): unknown[] } }).metadata;
  const value = metadata?.get('x-quarry-error-code')[0];
  return typeof value === 'string' ? value : undefined;
}

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
  /** A partition without a live owner, or an executor failing its leg: 503, as for a pushed-down query. */
  readonly passThroughCodes: ReadonlySet<string> = new Set(['CLUSTER_PARTITION_UNAVAILABLE']);
  readonly #dataset: PartitionedDataset;
  readonly #state: ClusterState;
  readonly #bucketsOf: BucketsOf;
  readonly #clients = new Map<string, FlightSqlClient>();
  readonly #legClients = new Map<string, Http2DoGetClient>();
  /** Leg tickets by statement text: a repeated query sends the bytes encoded the first time (~50 µs of protobuf each). */
  readonly #tickets = new LRUCache<string, Uint8Array>({ max: 1_000 });
  #view: ClusterView | undefined;
  #columns: string[] = [];

  #schema: Schema | undefined;
  #waiting: string | undefined;

  /** `runInternal` computes buckets of filter values with the engine's own hash(), as executors do. */
  readonly #log: Logger;
  /** Opens clients to executors' node listeners (mutual TLS). */
  readonly #connect: ExecutorConnector;

  constructor(dataset: PartitionedDataset, state: ClusterState, runInternal: (sql: string) => Promise<Array<Record<string, unknown>>>, log: Logger, connect: ExecutorConnector) {
    this.#dataset = dataset;
    this.#connect = connect;
    this.#log = log;
    this.#state = state;
    // The statement's text decides its answer (hash() is fixed within a release): a repeated key
    // lookup costs no engine call.
    const known = new LRUCache<string, Set<number>>({ max: 10_000 });
    this.#bucketsOf = async (key, values) => {
      const field = this.#schema?.fields.find((candidate) => candidate.name === key.column);
      if (field === undefined || values.length === 0) return undefined;
      const type = duckdbColumnType(field, dataset.name);
      const sql = `SELECT DISTINCT CAST(hash(CAST(v AS ${type})) % ${key.buckets} AS INTEGER) AS b FROM (VALUES ${values.map((value) => `(${scanLiteral(value)})`).join(', ')}) AS t(v)`;
      const cached = known.get(sql);
      if (cached) return cached;
      const rows = await runInternal(sql).catch(() => undefined);
      if (rows === undefined) return undefined;
      const buckets = new Set(rows.map((row) => Number(row['b'])));
      known.set(sql, buckets);
      return buckets;
    };
  }

  get datasetName(): string {
    return this.#dataset.name;
  }

  /** The dataset's columns and their DuckDB types, once `schema()` has answered (empty before). */
  get columns(): ReadonlyArray<{ name: string; type: string }> {
    return this.#schema?.fields.map((field) => ({ name: field.name, type: duckdbColumnType(field, this.#dataset.name) })) ?? [];
  }

  /**
   * From the first live executor; waits for one (within the signal). Until then the scheduler
   * listens and the dataset is not ready (queries naming it get DATASET_NOT_READY, saying why).
   */
  async schema(signal: AbortSignal): Promise<Schema> {
    for (;;) {
      const view = await this.#read(true);
      const executor = [...view.live].find((id) => view.addresses.get(id));
      if (executor !== undefined) {
        this.#waiting = `asking executor ${executor} for them`;
        const schema = await this.#client(view.addresses.get(executor)!).querySchema(`SELECT * FROM ${this.#dataset.table}`);
        this.#columns = schema.fields.map((field) => field.name);
        this.#schema = schema;
        this.#waiting = undefined;
        return schema;
      }
      this.#waiting = 'no live executor has joined the cluster yet';
      if (signal.aborted) throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `dataset "${this.#dataset.name}": no live executor answered for its columns`);
      await sleep(250, undefined, { signal }).catch(() => {});
    }
  }

  /** While `schema()` waits: why (no live executor yet, or which one is being asked). */
  schemaWait(): string | undefined {
    return this.#waiting;
  }

  async *scan(request: ScanRequest): AsyncIterable<RecordBatch> {
    const { legs, of } = await this.legs(request.filters ?? []);
    this.#log.debug('cluster scan', { dataset: this.#dataset.name, executors: legs.map((leg) => leg.owner).join(','), partitions: legs.reduce((sum, leg) => sum + leg.partitions.length, 0), of });
    // All legs start at once (the executors work in parallel); batches are passed on leg by leg.
    const streams = await this.openLegs(legs.map((leg) => ({ leg, sql: (predicate) => executorScanSql(this.#dataset.table, this.#columns, request, predicate) })), request.signal);
    let remaining = request.limit;
    for (const [index, stream] of streams.entries()) {
      let rows = 0;
      try {
        for await (const batch of stream.batches) {
          if (remaining !== undefined && remaining <= 0) break;
          rows += batch.numRows;
          if (remaining !== undefined) remaining -= batch.numRows;
          yield batch;
        }
      } catch (error) {
        // An executor dropping out mid-stream: the same answer as when it refuses at once (a cancel stays a cancel).
        if (request.signal.aborted || (error instanceof QuarryError && error.code === 'CLUSTER_PARTITION_UNAVAILABLE')) throw error;
        throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `dataset "${this.#dataset.name}": executor ${legs[index]!.owner} failed its share of the scan: ${(error as Error).message}`, { cause: error });
      } finally {
        stream.cancel();
        this.#log.debug('cluster leg', { dataset: this.#dataset.name, executor: legs[index]!.owner, rows });
      }
    }
  }

  /**
   * The executors a read of the dataset with these filters must ask, each with the wanted
   * partitions it owns (filters on the partition key prune partitions), sorted by owner.
   * Throws when the dataset has no partitions yet or a wanted partition has no live owner.
   */
  async legs(filters: readonly ScanFilter[]): Promise<{ legs: ClusterLeg[]; of: number }> {
    const view = await this.#read(false);
    if (view.partitions.length === 0) {
      throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `Cannot execute query: dataset "${this.#dataset.name}" has no partitions yet (the scheduler discovers and assigns them each partition_assignment_interval once executors are live)`);
    }
    const wanted = await partitionFilter(this.#dataset.keys, filters, this.#bucketsOf);
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
    const owned = new Map<string, number>();
    for (const partition of view.partitions) if (partition.owner !== null) owned.set(partition.owner, (owned.get(partition.owner) ?? 0) + 1);
    const legs = [...byOwner].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([owner, partitions]) => ({
      owner,
      address: view.addresses.get(owner)!,
      partitions,
      predicate: partitionsPredicate(this.#dataset.keys, partitions),
      everything: partitions.length === owned.get(owner),
    }));
    return { legs, of: view.partitions.length };
  }

  /**
   * Starts every leg's query at once and resolves when each has answered its schema. The
   * statement (`sql` given the leg's partition predicate) goes straight into DoGet as a
   * CommandStatementQuery ticket: one round trip (no GetFlightInfo), and the executor
   * prepares it once. A leg asking for everything its executor owns is first sent without
   * the predicate (an exact scan, see share-gate.ts) and again with it if the executor's
   * table holds other partitions right now. If any leg fails, the others are cancelled and
   * the error names the executor.
   */
  async openLegs(queries: ReadonlyArray<{ leg: ClusterLeg; sql: (predicate: string) => string }>, signal: AbortSignal): Promise<FlightStream[]> {
    const opened = await Promise.allSettled(queries.map(async ({ leg, sql }) => {
      // The executor checks it holds these partitions before it answers (a share that just moved is refused, never empty).
      const ask = (exact: boolean) => {
        const headers = { [PARTITIONS_HEADER]: JSON.stringify({ dataset: this.#dataset.name, partitions: leg.partitions.map(partitionId), ...(exact ? { exact: true } : {}) }) };
        return this.#legClient(leg.address).doGet(this.#ticket(sql(exact ? 'TRUE' : leg.predicate)), { signal, headers });
      };
      try {
        if (!leg.everything) return await ask(false);
        return await ask(true).catch((error: unknown) => {
          if (errorCodeOf(error) !== 'CLUSTER_SHARE_CHANGING') throw error;
          return ask(false);
        });
      } catch (error) {
        throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `dataset "${this.#dataset.name}": executor ${leg.owner} failed its share of the scan: ${(error as Error).message}`, { cause: error });
      }
    }));
    const failed = opened.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) {
      for (const result of opened) if (result.status === 'fulfilled') result.value.cancel();
      throw failed.reason;
    }
    return opened.map((result) => (result as PromiseFulfilledResult<FlightStream>).value);
  }

  async close(): Promise<void> {
    for (const client of this.#clients.values()) client.close();
    await Promise.all([...this.#legClients.values()].map((client) => client.close()));
    this.#clients.clear();
    this.#legClients.clear();
  }

  #ticket(query: string): Uint8Array {
    let ticket = this.#tickets.get(query);
    if (!ticket) {
      ticket = packAny(CommandStatementQuerySchema, { query });
      this.#tickets.set(query, ticket);
    }
    return ticket;
  }

  /** For the dataset's schema (once): Flight SQL's GetFlightInfo. */
  #client(address: string): FlightSqlClient {
    let client = this.#clients.get(address);
    if (!client) {
      client = this.#connect.flightSql(address);
      this.#clients.set(address, client);
    }
    return client;
  }

  /** For scan legs: DoGet alone, over a lighter HTTP/2 client than grpc-js (http2-doget.ts). */
  #legClient(address: string): Http2DoGetClient {
    let client = this.#legClients.get(address);
    if (!client) {
      client = this.#connect.doGet(address);
      this.#legClients.set(address, client);
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
