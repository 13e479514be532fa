import type { Logger } from '../../core/log.js';
import type { NodeRole } from './cluster-document.js';
import type { ClusterState } from './cluster-state.js';

/**
 * A node's place in the cluster: joins `cluster.json` once, then rewrites its heartbeat every
 * ttl/3 so two missed writes still leave it live. `stop()` deletes the heartbeat, so a node
 * shut down cleanly is seen gone at once instead of after its ttl.
 */
export class Membership {
  readonly #state: ClusterState;
  readonly #nodeId: string;
  readonly #role: NodeRole;
  readonly #address: string;
  readonly #ttlMs: number;
  readonly #log: Logger | undefined;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> = Promise.resolve();

  constructor(options: { state: ClusterState; nodeId: string; role: NodeRole; address: string; ttlMs: number; log?: Logger }) {
    this.#state = options.state;
    this.#nodeId = options.nodeId;
    this.#role = options.role;
    this.#address = options.address;
    this.#ttlMs = options.ttlMs;
    this.#log = options.log;
  }

  get nodeId(): string {
    return this.#nodeId;
  }

  async start(): Promise<void> {
    await this.beat();
    await this.#state.join(this.#nodeId, this.#role, this.#address);
    this.#timer = setInterval(() => {
      this.#beating = this.beat().catch((error: unknown) => this.#log?.warn('cluster heartbeat failed; retrying', { node_id: this.#nodeId, error: (error as Error).message }));
    }, Math.max(50, Math.floor(this.#ttlMs / 3)));
    this.#timer.unref();
  }

  async beat(): Promise<void> {
    await this.#state.writeHeartbeat({ node_id: this.#nodeId, role: this.#role, address: this.#address, written_at_ms: Date.now(), ttl_ms: this.#ttlMs });
  }

  /** Stops beating; `leave` also deletes the heartbeat (a clean shutdown). */
  async stop(leave = true): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#beating;
    if (leave) await this.#state.removeHeartbeat(this.#nodeId);
  }
}
