import type { KeyRules } from '../../core/engine/acceleration/refresh-statements.js';
import type { EngineApi } from '../../core/engine/engine-api.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { Logger } from '../../core/log.js';
import type { Principal } from '../../core/pipeline/types.js';
import type { PartitionedDataset } from './cluster-config.js';
import { NodeClient } from './node/node-client.js';
import type { NodeTlsMaterial } from './node/node-credentials.js';
import type { ApplyWriteReply, ApplyWriteRequest, HeartbeatReply, WriteEntry } from './node/node-protocol.js';
import { clusterOrder, partitionId, type PartitionValue } from './partition-keys.js';
import { ShareGate } from './share-gate.js';
import { batchesOf, fromArrowIpc, withConstantColumn } from './writes/arrow-ipc.js';
import { ownedRowsSql, ownedRowsWithWritesSql, WRITE_ORDER_COLUMN, writeTableName, writeTableParts } from './writes/share-sql.js';
import './errors.js';

export { ownedRowsSql } from './writes/share-sql.js';

/** Who writes when a scheduler's write is applied on an executor (the node listener authenticated the scheduler). */
const CLUSTER_WRITER: Principal = Object.freeze({ id: 'cluster', method: 'cluster-node', canWrite: true });

/**
 * An executor's side of the cluster: beats to every scheduler every ttl/3, learns from the
 * replies which partitions it owns, and reloads a dataset's acceleration with only those rows
 * — the source's plus the accepted writes of those partitions, read from the write log through
 * a scheduler — whenever its share changes. Until the first reply a partitioned dataset holds
 * no rows (its initial `refresh_sql` selects none), so it never serves data it does not own.
 *
 * A dataset's reloads and the writes schedulers apply to it take turns (one lock per dataset),
 * and the agent remembers which log entries its table holds: a write is applied exactly once,
 * whether it arrives before, during or after a reload that lists it.
 */
export class ExecutorAgent {
  readonly #clients: NodeClient[];
  readonly #options: { nodeId: string; nodeEndpoint: () => string; datasets: readonly PartitionedDataset[]; engine: EngineApi; log: Logger; keyRules: (dataset: string) => KeyRules; refreshIntervals?: ReadonlyMap<string, number> };
  /** Ownership loaded per dataset (its source predicate); a dataset reloads when the wanted one differs. */
  readonly #applied = new Map<string, string>();
  #wanted = new Map<string, string>();
  /** Partition ids each dataset's table holds now, and the ids wanted with each wanted predicate. */
  readonly #held = new Map<string, ReadonlySet<string>>();
  #wantedIds = new Map<string, ReadonlySet<string>>();
  /** Write-log entries each dataset's table holds. */
  readonly #entries = new Map<string, Set<string>>();
  /** Per dataset: the reload or write running; the next one waits for it. */
  readonly #turns = new Map<string, Promise<unknown>>();
  #owned: Readonly<Record<string, PartitionValue[][]>> = {};
  #revision = -1;
  #ttlMs: number;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> = Promise.resolve();
  #stopped = false;
  #reloading: Promise<void> = Promise.resolve();
  #connected = false;
  /**
   * Per dataset, how many times this executor's table changed (share loads, refreshes, applied
   * writes). Sent with every heartbeat: a scheduler whose results cache holds answers computed
   * from the dataset drops them when the count moves (a refresh here, a write through another
   * scheduler).
   */
  readonly #versions = new Map<string, number>();
  readonly #refreshTimers: NodeJS.Timeout[] = [];
  /** Which scans may leave out the partition predicate (the table holds exactly what they want). */
  readonly gate: ShareGate;

  constructor(options: { nodeId: string; nodeEndpoint: () => string; schedulerAddresses: readonly string[]; tls: NodeTlsMaterial | undefined; datasets: readonly PartitionedDataset[]; engine: EngineApi; log: Logger; ttlMs: number; keyRules: (dataset: string) => KeyRules; refreshIntervals?: ReadonlyMap<string, number> }) {
    this.#clients = options.schedulerAddresses.map((address) => new NodeClient(address, options.tls));
    this.#options = options;
    this.#ttlMs = options.ttlMs;
    for (const dataset of options.datasets) this.#applied.set(dataset.name, ownedRowsSql(dataset, []));
    this.gate = new ShareGate(options.datasets.map((dataset) => dataset.name));
  }

  /** Whether the last heartbeat reached at least one scheduler. */
  get connected(): boolean {
    return this.#connected;
  }

  /** Partitions owned per dataset, as of the newest reply. */
  get owned(): Readonly<Record<string, PartitionValue[][]>> {
    return this.#owned;
  }

  start(): void {
    // refresh_check_interval: the owned share (source rows and accepted writes) is reloaded on
    // that interval, as a single node refreshes the whole dataset.
    for (const [name, intervalMs] of this.#options.refreshIntervals ?? []) {
      if (intervalMs <= 0) continue;
      this.#refreshTimers.push(setInterval(() => void this.refresh(name), intervalMs).unref());
    }
    const loop = () => {
      if (this.#stopped) return;
      this.#tick = this.beat().finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(loop, Math.max(50, Math.floor(this.#ttlMs / 3))).unref();
      });
    };
    loop();
  }

  /** One heartbeat to every scheduler, then reloads what changed. */
  async beat(): Promise<void> {
    const nodeEndpoint = this.#options.nodeEndpoint();
    // Before its node listener is bound and its datasets registered an executor cannot serve scans: it waits to beat.
    if (nodeEndpoint === '') return;
    const request = { node_id: this.#options.nodeId, node_endpoint: nodeEndpoint, data_versions: Object.fromEntries(this.#versions) };
    const replies = await Promise.allSettled(this.#clients.map((client) => client.heartbeat(request)));
    let newest: HeartbeatReply | undefined;
    for (const [index, reply] of replies.entries()) {
      if (reply.status === 'rejected') {
        this.#options.log.warn('heartbeat to a scheduler failed', { scheduler: this.#clients[index]!.target, error: (reply.reason as Error).message });
      } else if (newest === undefined || reply.value.revision > newest.revision) {
        newest = reply.value;
      }
    }
    this.#connected = newest !== undefined;
    if (newest !== undefined && newest.revision >= this.#revision) {
      this.#revision = newest.revision;
      this.#ttlMs = newest.heartbeat_ttl_ms;
      this.#owned = newest.partitions;
      this.#wanted = new Map(this.#options.datasets.map((dataset) => [dataset.name, ownedRowsSql(dataset, newest.partitions[dataset.name] ?? [])]));
      this.#wantedIds = new Map(this.#options.datasets.map((dataset) => [dataset.name, new Set((newest.partitions[dataset.name] ?? []).map(partitionId))]));
    }
    await this.reload();
  }

  /** Reloads each loaded dataset whose owned share differs from what it holds (one reload pass at a time). */
  reload(): Promise<void> {
    this.#reloading = this.#reloading.then(() => this.#reloadChanged());
    return this.#reloading;
  }

  async #reloadChanged(): Promise<void> {
    for (const [name, sql] of this.#wanted) {
      if (this.#applied.get(name) === sql) continue;
      await this.#reloadShare(name, sql, 'owned partitions loaded');
    }
  }

  /**
   * Reloads a dataset's owned share now even if ownership did not change (its
   * refresh_check_interval): in turn with ownership reloads, never two at once.
   */
  refresh(name: string): Promise<void> {
    this.#reloading = this.#reloading.then(async () => {
      const sql = this.#applied.get(name);
      // Before the first owned share is loaded there is nothing to refresh (the beat loads it).
      if (sql === undefined || this.#wanted.get(name) !== sql) return;
      await this.#reloadShare(name, sql, 'owned partitions refreshed');
    });
    return this.#reloading;
  }

  async #reloadShare(name: string, sql: string, what: string): Promise<void> {
    const state = this.#options.engine.dataset(name)?.state;
    if (state !== 'ready' && state !== 'error') return; // still loading: the next beat retries
    const dataset = this.#options.datasets.find((candidate) => candidate.name === name)!;
    const partitions = this.#owned[name] ?? [];
    const ids = this.#wantedIds.get(name) ?? new Set<string>();
    // Exact scans (no partition predicate) wait until the table holds the new share.
    await this.gate.beginReload(name);
    try {
      const entries = await this.#inTurn(name, () => this.#loadShare(dataset, partitions, ids));
      this.#applied.set(name, sql);
      this.#changed(name);
      this.gate.endReload(name, ids);
      this.#options.log.info(what, { dataset: name, partitions: partitions.length, writes: entries, revision: this.#revision });
    } catch (error) {
      this.gate.endReload(name, undefined);
      this.#options.log.warn(`${what === 'owned partitions loaded' ? 'loading' : 'refreshing'} owned partitions failed; retried on the next ${what === 'owned partitions loaded' ? 'heartbeat' : 'refresh'}`, { dataset: name, error: (error as Error).message });
    }
  }

  #changed(name: string): void {
    this.#versions.set(name, (this.#versions.get(name) ?? 0) + 1);
  }

  /** Loads the share (source rows and accepted writes of `partitions`) in one swap; resolves to the number of writes loaded. */
  async #loadShare(dataset: PartitionedDataset, partitions: readonly (readonly PartitionValue[])[], ids: ReadonlySet<string>): Promise<number> {
    const { engine } = this.#options;
    const entries = ids.size === 0 ? [] : await this.#fromSchedulers((client) => client.listWrites({ dataset: dataset.name, partitions: [...ids] }), 'list the write log').then((reply) => reply.entries);
    const writeTable = writeTableName(dataset);
    // While the table is swapped, hold only what both the old and the new share contain; a
    // failed load leaves the old table, and what it held.
    const before = this.#held.get(dataset.name) ?? new Set<string>();
    this.#held.set(dataset.name, new Set([...before].filter((id) => ids.has(id))));
    try {
      let refreshSql = ownedRowsSql(dataset, partitions);
      if (entries.length > 0) {
        await engine.runInternal('CREATE SCHEMA IF NOT EXISTS quarry_cluster');
        await engine.runInternal(`CREATE OR REPLACE TABLE ${writeTable} AS SELECT *, CAST(NULL AS BIGINT) AS ${WRITE_ORDER_COLUMN} FROM ${dataset.table} LIMIT 0`);
        for (const [index, entry] of entries.entries()) {
          const body = await this.#fromSchedulers((client) => client.readWrite({ dataset: dataset.name, id: entry.id }), 'read the write log');
          const rows = fromArrowIpc(body);
          const ordered = withConstantColumn(rows.schema, rows.batches, WRITE_ORDER_COLUMN, index + 1);
          await engine.appendToTable(writeTableParts(dataset), ordered.schema, batchesOf(ordered.batches), AbortSignal.timeout(120_000));
        }
        refreshSql = ownedRowsWithWritesSql(dataset, partitions, writeTable, this.#options.keyRules(dataset.name));
      }
      // Stored in key order: filters on the partition key skip row groups of the share too.
      await engine.refresh(dataset.name, { refreshSql, refreshMode: 'full', orderBy: clusterOrder(dataset.keys) });
      this.#entries.set(dataset.name, new Set(entries.map((entry) => entry.id)));
      this.#held.set(dataset.name, ids);
      return entries.length;
    } catch (error) {
      this.#held.set(dataset.name, before);
      throw error;
    } finally {
      if (entries.length > 0) await engine.runInternal(`DROP TABLE IF EXISTS ${writeTable}`).catch(() => undefined);
    }
  }

  /**
   * A scheduler's write of accepted rows (already in the write log): appended once, after any
   * reload of the dataset in progress; refused when this executor does not hold the partitions.
   */
  applyWrite(request: ApplyWriteRequest): Promise<ApplyWriteReply> {
    return this.#inTurn(request.dataset, async () => {
      const missing = this.missing(request.dataset, request.entry.partitions);
      if (missing.length > 0) {
        throw new QuarryError('CLUSTER_PARTITION_UNAVAILABLE', `executor ${this.#options.nodeId} does not hold ${missing.length} partition(s) of dataset "${request.dataset}": ${missing.slice(0, 10).join(', ')} (the share moved or is loading)`);
      }
      const entries = this.#entries.get(request.dataset) ?? new Set<string>();
      if (entries.has(request.entry.id)) return { applied: false }; // loaded with the share already
      const rows = fromArrowIpc(request.body);
      await this.#options.engine.append(request.dataset, rows.schema, batchesOf(rows.batches), { principal: CLUSTER_WRITER, signal: AbortSignal.timeout(120_000) });
      entries.add(request.entry.id);
      this.#changed(request.dataset);
      this.#entries.set(request.dataset, entries);
      return { applied: true };
    });
  }

  /** The requested partitions of `dataset` this executor's table does not hold (empty when it holds them all). */
  missing(dataset: string, partitions: readonly string[]): string[] {
    const held = this.#held.get(dataset) ?? new Set<string>();
    return partitions.filter((id) => !held.has(id));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const timer of this.#refreshTimers.splice(0)) clearInterval(timer);
    await this.#tick;
    for (const client of this.#clients) client.close();
  }

  /** Runs `work` once the dataset's previous reload or write has finished. */
  #inTurn<T>(dataset: string, work: () => Promise<T>): Promise<T> {
    const previous = this.#turns.get(dataset) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.#turns.set(dataset, next);
    void next.finally(() => {
      if (this.#turns.get(dataset) === next) this.#turns.delete(dataset);
    }).catch(() => undefined);
    return next;
  }

  /** Asks each scheduler in turn until one answers. */
  async #fromSchedulers<T>(call: (client: NodeClient) => Promise<T>, what: string): Promise<T> {
    const failures: string[] = [];
    for (const client of this.#clients) {
      try {
        return await call(client);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    throw new QuarryError('CLUSTER_NODE_UNREACHABLE', `no scheduler could ${what}: ${failures.join('; ')}`);
  }
}

export type { WriteEntry };
