import type { EngineApi } from '../../core/engine/engine-api.js';
import type { Logger } from '../../core/log.js';
import type { PartitionedDataset } from './cluster-config.js';
import { NodeClient } from './node/node-client.js';
import type { NodeTlsMaterial } from './node/node-credentials.js';
import type { HeartbeatReply } from './node/node-protocol.js';
import { partitionId, partitionsPredicate, type PartitionValue } from './partition-keys.js';
import { ShareGate } from './share-gate.js';

/** The rows of the partitions an executor owns, as the `refresh_sql` its acceleration loads. */
export function ownedRowsSql(dataset: PartitionedDataset, partitions: readonly (readonly PartitionValue[])[]): string {
  return `SELECT * FROM ${dataset.table} WHERE ${partitionsPredicate(dataset.keys, partitions)}`;
}

/**
 * An executor's side of the cluster: beats to every scheduler every ttl/3, learns from the
 * replies which partitions it owns, and reloads a dataset's acceleration with only those rows
 * whenever its share changes. Until the first reply a partitioned dataset holds no rows (its
 * initial `refresh_sql` selects none), so it never serves data it does not own.
 */
export class ExecutorAgent {
  readonly #clients: NodeClient[];
  readonly #options: { nodeId: string; flightEndpoint: () => string; datasets: readonly PartitionedDataset[]; engine: EngineApi; log: Logger };
  /** Predicate SQL loaded per dataset; a dataset reloads when the wanted one differs. */
  readonly #applied = new Map<string, string>();
  #wanted = new Map<string, string>();
  /** Partition ids each dataset's table holds now, and the ids wanted with each wanted predicate. */
  readonly #held = new Map<string, ReadonlySet<string>>();
  #wantedIds = new Map<string, ReadonlySet<string>>();
  #owned: Readonly<Record<string, PartitionValue[][]>> = {};
  #revision = -1;
  #ttlMs: number;
  #timer: NodeJS.Timeout | undefined;
  #tick: Promise<void> = Promise.resolve();
  #stopped = false;
  #reloading: Promise<void> = Promise.resolve();
  #connected = false;
  /** Which scans may leave out the partition predicate (the table holds exactly what they want). */
  readonly gate: ShareGate;

  constructor(options: { nodeId: string; flightEndpoint: () => string; schedulerAddresses: readonly string[]; tls: NodeTlsMaterial | undefined; datasets: readonly PartitionedDataset[]; engine: EngineApi; log: Logger; ttlMs: number }) {
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
    const flightEndpoint = this.#options.flightEndpoint();
    // Before its Flight listener is bound an executor cannot serve scans: it waits to beat.
    if (flightEndpoint === '') return;
    const request = { node_id: this.#options.nodeId, flight_endpoint: flightEndpoint };
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
      const state = this.#options.engine.dataset(name)?.state;
      if (state !== 'ready' && state !== 'error') continue; // still loading: the next beat retries
      const ids = this.#wantedIds.get(name) ?? new Set<string>();
      // While the table is swapped, hold only what both the old and the new share contain.
      const before = this.#held.get(name) ?? new Set<string>();
      this.#held.set(name, new Set([...before].filter((id) => ids.has(id))));
      // Exact scans (no partition predicate) wait until the table holds the new share.
      await this.gate.beginReload(name);
      try {
        await this.#options.engine.refresh(name, { refreshSql: sql, refreshMode: 'full' });
        this.#applied.set(name, sql);
        this.#held.set(name, ids);
        this.gate.endReload(name, ids);
        this.#options.log.info('owned partitions loaded', { dataset: name, partitions: this.#owned[name]?.length ?? 0, revision: this.#revision });
      } catch (error) {
        this.gate.endReload(name, undefined);
        this.#options.log.warn('loading owned partitions failed; retried on the next heartbeat', { dataset: name, error: (error as Error).message });
      }
    }
  }

  /** The requested partitions of `dataset` this executor's table does not hold (empty when it holds them all). */
  missing(dataset: string, partitions: readonly string[]): string[] {
    const held = this.#held.get(dataset) ?? new Set<string>();
    return partitions.filter((id) => !held.has(id));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#tick;
    for (const client of this.#clients) client.close();
  }
}
