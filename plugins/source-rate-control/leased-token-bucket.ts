import { randomInt } from 'node:crypto';
import type { Logger } from '../../core/log.js';
import type { ObjectStore } from '../../core/object-store/types.js';
import { sleep } from '../../core/outbound/retry-timing.js';
import { grantLease, type LeaseLedger } from './lease-ledger.js';

/** How often a replica whose lease ran out may ask for unclaimed tokens, as a fraction of the window. */
const TOP_UP_FRACTION = 8;
const MAX_CAS_ATTEMPTS = 20;

/**
 * One replica's side of a limiter shared through the object store. Time is cut into lease
 * windows (`refresh_interval`, aligned to the wall clock); at its first request in a window a
 * replica leases its demand-weighted share of the window's budget with a compare-and-swap on
 * the ledger, then spends the tokens evenly over the rest of the window. If the store cannot
 * be reached it falls back, for that window, to an equal split among the replicas it last saw.
 */
export class LeasedTokenBucket {
  readonly #store: ObjectStore;
  readonly #key: string;
  readonly #replica: string;
  readonly #windowMs: number;
  readonly #budget: number;
  readonly #log: Logger;
  #window = -1;
  #tokens = 0;
  #spacingMs = 0;
  #nextAt = 0;
  #toppedUpAt = 0;
  #knownReplicas = 1;
  #queue: Promise<void> = Promise.resolve();
  #outstanding = 0;
  #demandIntegral = 0;
  #demandSince = Date.now();
  #lastChange = Date.now();
  readonly #onLostRace: (() => void) | undefined;

  constructor(options: { store: ObjectStore; key: string; replica: string; windowMs: number; budget: number; log: Logger; onLostRace?: (() => void) | undefined }) {
    this.#onLostRace = options.onLostRace;
    this.#store = options.store;
    this.#key = options.key;
    this.#replica = options.replica;
    this.#windowMs = options.windowMs;
    this.#budget = options.budget;
    this.#log = options.log;
  }

  /** Counts a request as outstanding (waiting or in flight) until the returned function runs: that is the demand reported. */
  enter(): () => void {
    this.#accumulate();
    this.#outstanding++;
    return () => {
      this.#accumulate();
      this.#outstanding--;
    };
  }

  acquire(signal: AbortSignal): Promise<void> {
    const turn = this.#queue.then(() => this.#take(signal));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  async #take(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const now = Date.now();
      const window = Math.floor(now / this.#windowMs);
      const windowEnd = (window + 1) * this.#windowMs;
      if (window !== this.#window) {
        await this.#renew('lease', window);
        continue;
      }
      if (this.#tokens <= 0) {
        if (now - this.#toppedUpAt >= this.#windowMs / TOP_UP_FRACTION) {
          this.#toppedUpAt = now;
          await this.#renew('top-up', window);
          if (this.#tokens > 0) continue;
        }
        // Wait for unclaimed tokens or the next window, whichever comes first.
        await sleep(Math.max(1, Math.min(windowEnd - Date.now(), this.#windowMs / TOP_UP_FRACTION)) + randomInt(0, 5), signal);
        continue;
      }
      if (this.#nextAt > now) {
        await sleep(Math.min(this.#nextAt, windowEnd) - now, signal);
        if (Math.floor(Date.now() / this.#windowMs) !== window) continue;
      }
      this.#tokens--;
      this.#nextAt = Math.max(this.#nextAt, now) + this.#spacingMs;
      return;
    }
  }

  async #renew(mode: 'lease' | 'top-up', window: number): Promise<void> {
    const demand = mode === 'lease' ? this.#takeDemand() : Math.max(this.#outstanding, 1);
    let granted: number | undefined;
    try {
      granted = await this.#casLease(mode, window, demand);
    } catch (error) {
      this.#log.warn('shared rate-control state unreachable; using an equal split for this window', { store: this.#store.location, error: (error as Error).message });
    }
    if (granted === undefined) {
      granted = mode === 'lease' ? Math.max(1, Math.floor(this.#budget / this.#knownReplicas)) : 0;
    }
    const now = Date.now();
    if (mode === 'lease') {
      this.#window = window;
      this.#tokens = granted;
      this.#nextAt = now;
    } else {
      this.#tokens += granted;
    }
    const remainingMs = Math.max(1, (window + 1) * this.#windowMs - now);
    this.#spacingMs = this.#tokens > 0 ? remainingMs / this.#tokens : 0;
  }

  /** Compare-and-swap on the ledger until this replica's write wins; undefined after too many lost races. */
  async #casLease(mode: 'lease' | 'top-up', window: number, demand: number): Promise<number | undefined> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const stored = await this.#store.get(this.#key);
      const current = stored ? (JSON.parse(stored.body.toString('utf8')) as LeaseLedger) : undefined;
      const { ledger, granted } = grantLease(current, { replica: this.#replica, demand, window, windowMs: this.#windowMs, budget: this.#budget, mode });
      const body = Buffer.from(JSON.stringify(ledger));
      const written = stored ? await this.#store.putIfMatch(this.#key, body, stored.version) : await this.#store.putIfAbsent(this.#key, body);
      if (written !== undefined) {
        this.#knownReplicas = Math.max(1, Object.keys(ledger.replicas).length);
        return granted;
      }
      this.#onLostRace?.();
      await sleep(randomInt(2, 20 + attempt * 10), new AbortController().signal);
    }
    this.#log.warn('lost the race for the shared rate-control state too often; using an equal split for this window', { store: this.#store.location });
    return undefined;
  }

  #accumulate(): void {
    const now = Date.now();
    this.#demandIntegral += this.#outstanding * (now - this.#lastChange);
    this.#lastChange = now;
  }

  /** Average outstanding requests since the last lease (at least what is outstanding now), then starts a new period. */
  #takeDemand(): number {
    this.#accumulate();
    const elapsed = Math.max(1, Date.now() - this.#demandSince);
    const demand = Math.max(this.#demandIntegral / elapsed, this.#outstanding);
    this.#demandIntegral = 0;
    this.#demandSince = Date.now();
    return demand;
  }
}
