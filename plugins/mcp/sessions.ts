import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../../core/log.js';

/** Sessions nobody used for this long are closed: clients that vanish never send DELETE. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

export interface McpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Its client did not accept SSE at initialize: every answer is JSON. */
  readonly jsonOnly: boolean;
  lastUsed: number;
  /** Requests of this session in progress (an open GET stream counts): such a session is not idle. */
  active: number;
}

/** The open `Mcp-Session-Id` sessions of one runtime, with idle expiry. */
export class McpSessions {
  readonly #sessions = new Map<string, McpSession>();
  readonly #idleMs: number;
  readonly #log: Logger;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(idleMs: number, log: Logger) {
    this.#idleMs = idleMs;
    this.#log = log;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): McpSession | undefined {
    return this.#sessions.get(id);
  }

  add(id: string, session: McpSession): void {
    this.#sessions.set(id, session);
    this.#log.debug('MCP session opened', { session: id, open: this.#sessions.size });
    this.#startSweeper();
  }

  /** Forgets a session the transport closed (DELETE, expiry, shutdown). */
  remove(id: string): void {
    if (!this.#sessions.delete(id)) return;
    this.#log.debug('MCP session closed', { session: id, open: this.#sessions.size });
  }

  /** Marks a request of the session as started; the returned function marks it finished. */
  use(session: McpSession): () => void {
    session.active += 1;
    session.lastUsed = Date.now();
    return () => {
      session.active -= 1;
      session.lastUsed = Date.now();
    };
  }

  /** Closes sessions idle for longer than the limit. */
  async expireIdle(now = Date.now()): Promise<void> {
    const expired = [...this.#sessions.entries()].filter(([, session]) => session.active === 0 && now - session.lastUsed >= this.#idleMs);
    for (const [id] of expired) this.#log.info('MCP session expired after being idle', { session: id, idle_ms: this.#idleMs });
    await Promise.all(expired.map(([id, session]) => this.#close(id, session)));
  }

  /** Closes every session: open GET streams end, so the HTTP listener can close. */
  async closeAll(): Promise<void> {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    await Promise.all([...this.#sessions.entries()].map(([id, session]) => this.#close(id, session)));
  }

  async #close(id: string, session: McpSession): Promise<void> {
    this.remove(id);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  }

  #startSweeper(): void {
    if (this.#sweeper) return;
    // Check a few times per idle period; unref: an idle timer must not keep the process alive.
    const period = Math.max(10, Math.min(60_000, Math.floor(this.#idleMs / 4)));
    this.#sweeper = setInterval(() => void this.expireIdle(), period);
    this.#sweeper.unref();
  }
}
