import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { ObjectStore } from '../../../core/object-store/types.js';
import { MAX_UPDATE_ATTEMPTS } from '../cluster-state.js';
import type { WriteEntry } from '../node/node-protocol.js';
import '../errors.js';

/** The write log's index format; another one is refused, never guessed at. */
export const WRITE_LOG_SCHEMA_VERSION = 1;

interface WriteLogIndex {
  readonly schema_version: number;
  /** In the order the writes were accepted. */
  readonly entries: readonly WriteEntry[];
}

/** What one executor's share of a write adds: its partitions and its rows (Arrow IPC). */
export interface WritePiece {
  readonly partitions: readonly string[];
  readonly rows: number;
  readonly body: Buffer;
}

const datasetPrefix = (dataset: string) => `writes/${encodeURIComponent(dataset)}`;
export const writeLogIndexKey = (dataset: string) => `${datasetPrefix(dataset)}/log.json`;
export const writeObjectKey = (dataset: string, id: string) => `${datasetPrefix(dataset)}/objects/${id}.arrows`;

/** Time-ordered (for people listing the store) and unique (for the index). */
function newEntryId(): string {
  return `${Date.now().toString(36).padStart(9, '0')}-${randomUUID()}`;
}

/**
 * The rows written to a partitioned dataset, kept in the cluster's state store so that no
 * accepted row depends on one executor: `writes/<dataset>/objects/<id>.arrows` holds the rows
 * one executor was sent by one write (immutable, Arrow IPC), and `writes/<dataset>/log.json`
 * lists the accepted ones in order. The index changes only by compare-and-swap (bounded
 * retries), so a write is accepted exactly when its entries are in the index; an object
 * without an entry (a write that failed half-way) is never read. An executor loading a share
 * loads the source's rows plus the entries of its partitions, in order.
 */
export class WriteLog {
  readonly #store: ObjectStore;
  /** One index change at a time per dataset from this process: its own writes never race each other. */
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(store: ObjectStore) {
    this.#store = store;
  }

  /** Stores the pieces and adds them to the index (one compare-and-swap); resolves once they are durable. */
  async record(dataset: string, pieces: readonly WritePiece[]): Promise<WriteEntry[]> {
    const entries = pieces.map((piece) => ({ id: newEntryId(), partitions: [...piece.partitions], rows: piece.rows }));
    await Promise.all(pieces.map((piece, index) => this.#store.put(writeObjectKey(dataset, entries[index]!.id), piece.body)));
    try {
      await this.#change(dataset, (current) => [...current, ...entries]);
    } catch (error) {
      await this.#deleteObjects(dataset, entries.map((entry) => entry.id));
      throw error;
    }
    return entries;
  }

  /** Takes entries out of the index (a write whose executor then failed), then deletes their objects. */
  async remove(dataset: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const gone = new Set(ids);
    await this.#change(dataset, (current) => current.filter((entry) => !gone.has(entry.id)));
    await this.#deleteObjects(dataset, ids);
  }

  /** Accepted entries holding rows of any of `partitions` (all when undefined), in order. */
  async entries(dataset: string, partitions?: ReadonlySet<string>): Promise<WriteEntry[]> {
    const { index } = await this.#read(dataset);
    if (partitions === undefined) return [...index.entries];
    return index.entries.filter((entry) => entry.partitions.some((partition) => partitions.has(partition)));
  }

  /** The rows of one accepted entry (Arrow IPC). */
  async body(dataset: string, id: string): Promise<Buffer> {
    const stored = await this.#store.get(writeObjectKey(dataset, id));
    if (stored === undefined) throw new QuarryError('CLUSTER_STATE_INVALID', `${this.#store.location}${writeObjectKey(dataset, id)}: the write-log object of an accepted write is missing`);
    return stored.body;
  }

  async #read(dataset: string): Promise<{ index: WriteLogIndex; version: string | undefined }> {
    const stored = await this.#store.get(writeLogIndexKey(dataset));
    if (stored === undefined) return { index: { schema_version: WRITE_LOG_SCHEMA_VERSION, entries: [] }, version: undefined };
    let index: WriteLogIndex;
    try {
      index = JSON.parse(stored.body.toString('utf8')) as WriteLogIndex;
    } catch (error) {
      throw new QuarryError('CLUSTER_STATE_INVALID', `${this.#store.location}${writeLogIndexKey(dataset)} is not JSON: ${(error as Error).message}`);
    }
    if (index.schema_version !== WRITE_LOG_SCHEMA_VERSION || !Array.isArray(index.entries)) {
      throw new QuarryError('CLUSTER_STATE_INVALID', `${this.#store.location}${writeLogIndexKey(dataset)} has schema_version ${String(index.schema_version)}; this release reads ${WRITE_LOG_SCHEMA_VERSION} only`);
    }
    return { index, version: stored.version };
  }

  /** A read-modify-write of the index, guarded by the version read; queued per dataset in this process. */
  #change(dataset: string, change: (entries: readonly WriteEntry[]) => WriteEntry[]): Promise<void> {
    const previous = this.#queues.get(dataset) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(async () => {
      for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
        const { index, version } = await this.#read(dataset);
        const body = Buffer.from(`${JSON.stringify({ schema_version: WRITE_LOG_SCHEMA_VERSION, entries: change(index.entries) })}\n`);
        const written = version === undefined ? await this.#store.putIfAbsent(writeLogIndexKey(dataset), body) : await this.#store.putIfMatch(writeLogIndexKey(dataset), body, version);
        if (written !== undefined) return;
        await sleep((5 + Math.random() * 20) * (attempt + 1));
      }
      throw new QuarryError('CLUSTER_STATE_CONFLICT', `${this.#store.location}${writeLogIndexKey(dataset)}: the write log changed under this write ${MAX_UPDATE_ATTEMPTS} times in a row (other schedulers writing to dataset "${dataset}"); nothing was recorded`);
    });
    this.#queues.set(dataset, next);
    void next.finally(() => {
      if (this.#queues.get(dataset) === next) this.#queues.delete(dataset);
    }).catch(() => undefined);
    return next;
  }

  async #deleteObjects(dataset: string, ids: readonly string[]): Promise<void> {
    await Promise.all(ids.map((id) => this.#store.delete(writeObjectKey(dataset, id)).catch(() => undefined)));
  }
}
