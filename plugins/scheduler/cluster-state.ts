import { setTimeout as sleep } from 'node:timers/promises';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { ObjectStore } from '../../core/object-store/types.js';
import {
  CLUSTER_DOCUMENT_KEY,
  decodeClusterDocument,
  emptyClusterDocument,
  encodeClusterDocument,
  type ClusterDocument,
  type NodeRole,
} from './cluster-document.js';
import './errors.js';

/** Spice's bound: a change that loses eight races in a row gives up until the next round. */
export const MAX_UPDATE_ATTEMPTS = 8;

/** What a change to the document decides: the new document, or undefined to leave it as it is. */
export type DocumentChange<T> = (current: ClusterDocument) => { document: ClusterDocument; outcome: T } | { document: undefined; outcome: T };

export interface CommittedChange<T> {
  readonly outcome: T;
  /** The document after the change (the current one when nothing changed). */
  readonly document: ClusterDocument;
  /** Whether this call wrote (false when the change decided nothing needed doing). */
  readonly wrote: boolean;
  /** Races lost before the write that counted. */
  readonly lostRaces: number;
}

/** A node's liveness record, `heartbeats/<node id>.json`, rewritten every ttl/3. */
export interface Heartbeat {
  readonly node_id: string;
  readonly role: NodeRole;
  readonly address: string;
  readonly written_at_ms: number;
  readonly ttl_ms: number;
}

export function heartbeatKey(nodeId: string): string {
  return `heartbeats/${encodeURIComponent(nodeId)}.json`;
}

export function heartbeatExpired(heartbeat: Heartbeat | undefined, nowMs: number): boolean {
  return heartbeat === undefined || nowMs > heartbeat.written_at_ms + heartbeat.ttl_ms;
}

/**
 * Reads and changes the shared cluster state. Every change of `cluster.json` is a
 * read-modify-write guarded by the version read (If-Match on S3, link(2) on file://); a lost
 * race re-reads and re-decides from the fresh document, with jittered backoff, at most
 * MAX_UPDATE_ATTEMPTS times.
 */
export class ClusterState {
  readonly store: ObjectStore;
  readonly #maxAttempts: number;
  readonly #onLostRace: () => void;

  constructor(store: ObjectStore, options: { maxAttempts?: number; onLostRace?: () => void } = {}) {
    this.store = store;
    this.#maxAttempts = options.maxAttempts ?? MAX_UPDATE_ATTEMPTS;
    this.#onLostRace = options.onLostRace ?? (() => {});
  }

  async read(): Promise<ClusterDocument> {
    const stored = await this.store.get(CLUSTER_DOCUMENT_KEY);
    return stored === undefined ? emptyClusterDocument() : decodeClusterDocument(stored.body, this.store.location);
  }

  async update<T>(change: DocumentChange<T>): Promise<CommittedChange<T>> {
    for (let attempt = 0; attempt < this.#maxAttempts; attempt++) {
      const stored = await this.store.get(CLUSTER_DOCUMENT_KEY);
      const current = stored === undefined ? emptyClusterDocument() : decodeClusterDocument(stored.body, this.store.location);
      const decided = change(current);
      if (decided.document === undefined) return { outcome: decided.outcome, document: current, wrote: false, lostRaces: attempt };
      const next: ClusterDocument = { ...decided.document, revision: current.revision + 1 };
      const body = encodeClusterDocument(next);
      const written = stored === undefined
        ? await this.store.putIfAbsent(CLUSTER_DOCUMENT_KEY, body)
        : await this.store.putIfMatch(CLUSTER_DOCUMENT_KEY, body, stored.version);
      if (written !== undefined) return { outcome: decided.outcome, document: next, wrote: true, lostRaces: attempt };
      this.#onLostRace();
      // Spread the racers out: 5–25 ms times the attempt number.
      await sleep((5 + Math.random() * 20) * (attempt + 1));
    }
    throw new QuarryError('CLUSTER_STATE_CONFLICT', `${this.store.location}${CLUSTER_DOCUMENT_KEY}: the change lost the compare-and-swap race ${this.#maxAttempts} times in a row; it is retried next round`);
  }

  /** Adds or refreshes a member (an executor joining, a scheduler starting); a no-op when unchanged. */
  async join(nodeId: string, role: NodeRole, address: string): Promise<ClusterDocument> {
    const committed = await this.update((current) => {
      const existing = current.members[nodeId];
      if (existing && existing.role === role && existing.address === address) return { document: undefined, outcome: undefined };
      return {
        document: { ...current, members: { ...current.members, [nodeId]: { role, address, joined_at: new Date().toISOString() } } },
        outcome: undefined,
      };
    });
    return committed.document;
  }

  async writeHeartbeat(heartbeat: Heartbeat): Promise<void> {
    await this.store.put(heartbeatKey(heartbeat.node_id), Buffer.from(JSON.stringify(heartbeat)));
  }

  async readHeartbeat(nodeId: string): Promise<Heartbeat | undefined> {
    const stored = await this.store.get(heartbeatKey(nodeId));
    if (stored === undefined) return undefined;
    try {
      return JSON.parse(stored.body.toString('utf8')) as Heartbeat;
    } catch {
      return undefined; // a torn or foreign object counts as no heartbeat
    }
  }

  async removeHeartbeat(nodeId: string): Promise<void> {
    await this.store.delete(heartbeatKey(nodeId));
  }

  /** Members of `role` whose heartbeat has not expired, sorted by id (the tie-break order). */
  async liveMembers(document: ClusterDocument, role: NodeRole, nowMs = Date.now()): Promise<string[]> {
    const candidates = Object.entries(document.members).filter(([, member]) => member.role === role).map(([id]) => id);
    const beats = await Promise.all(candidates.map(async (id) => [id, await this.readHeartbeat(id)] as const));
    return beats.filter(([, beat]) => !heartbeatExpired(beat, nowMs)).map(([id]) => id).sort();
  }
}
