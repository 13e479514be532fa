import { createHash, randomInt, randomUUID } from 'node:crypto';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { Logger } from '../../core/log.js';
import type { ObjectStore } from '../../core/object-store/types.js';
import type { OutboundRequest } from '../../core/outbound/types.js';
import { sleep } from '../../core/outbound/retry-timing.js';
import { LeasedTokenBucket } from './leased-token-bucket.js';
import { effectiveLimits, limiterKey, type EffectiveLimits, type RuntimeRateParams } from './limits.js';
import { Semaphore } from './semaphore.js';
import { SlidingWindowLimiter } from './sliding-window.js';

/** Connectors that talk to a code-hosting service: their concurrency is also limited per credential. */
const CODEHOST_CONNECTORS = new Set(['github']);

interface OriginLimiter {
  readonly limits: EffectiveLimits;
  readonly concurrency: Semaphore | undefined;
  readonly perSecond: SlidingWindowLimiter | undefined;
  readonly perMinute: SlidingWindowLimiter | undefined;
  readonly shared: LeasedTokenBucket | undefined;
}

export interface RateControllerOptions {
  readonly runtimeParams: RuntimeRateParams;
  readonly codehostConcurrency: number;
  /** Shared state: when set, per-second/per-minute quotas are leased from a budget all replicas share. */
  readonly store: ObjectStore | undefined;
  readonly leaseWindowMs: number;
  readonly log: Logger;
  /** Called with how long each attempt waited for its permits, by origin. */
  readonly onWaited?: (origin: string, connector: string, waitedMs: number) => void;
  /** Called when a shared-ledger write lost a compare-and-swap race and was retried. */
  readonly onLostRace?: () => void;
}

/**
 * Waits, before each upstream request, until every limit that applies lets it through:
 * the per-credential code-hosting concurrency, the per-origin concurrency, a random jitter,
 * the per-second and per-minute windows and, with shared state, a leased token.
 */
export class RateController {
  readonly #options: RateControllerOptions;
  readonly #limiters = new Map<string, OriginLimiter>();
  readonly #codehost = new Map<string, Semaphore>();
  /** This process's id in shared ledgers. */
  readonly replica = randomUUID();

  constructor(options: RateControllerOptions) {
    this.#options = options;
  }

  async admit(request: OutboundRequest): Promise<void> {
    const started = performance.now();
    try {
      await this.#admit(request);
      this.#options.onWaited?.(request.origin, request.connector, performance.now() - started);
    } catch (error) {
      if (!request.signal.aborted) throw error;
      throw new QuarryError('RATE_CONTROL_WAIT_CANCELLED', `${request.method} ${request.origin}${request.url.pathname} was cancelled while waiting for a rate-control permit`, { cause: error });
    }
  }

  async #admit(request: OutboundRequest): Promise<void> {
    if (CODEHOST_CONNECTORS.has(request.connector)) {
      const context = request.authContext ?? `${request.connector}:anonymous`;
      let semaphore = this.#codehost.get(context);
      if (!semaphore) this.#codehost.set(context, (semaphore = new Semaphore(this.#options.codehostConcurrency)));
      await semaphore.acquire(request.signal);
      const held = semaphore;
      request.defer(() => held.release());
    }
    const limits = effectiveLimits(this.#options.runtimeParams, request.dataset?.params, request.dataset?.name);
    if (!limits) return;
    const limiter = this.#limiter(request.origin, limits);
    if (limiter.shared) request.defer(limiter.shared.enter());
    if (limiter.concurrency) {
      await limiter.concurrency.acquire(request.signal);
      const held = limiter.concurrency;
      request.defer(() => held.release());
    }
    if (limits.jitterMaxMs > 0) await sleep(randomInt(limits.jitterMinMs, limits.jitterMaxMs + 1), request.signal);
    await limiter.perSecond?.acquire(request.signal);
    await limiter.perMinute?.acquire(request.signal);
    await limiter.shared?.acquire(request.signal);
  }

  #limiter(origin: string, limits: EffectiveLimits): OriginLimiter {
    const key = limiterKey(origin, limits);
    let limiter = this.#limiters.get(key);
    if (!limiter) {
      limiter = {
        limits,
        concurrency: limits.maxConcurrent === undefined ? undefined : new Semaphore(limits.maxConcurrent),
        perSecond: limits.perSecond === undefined ? undefined : new SlidingWindowLimiter(limits.perSecond, 1000),
        perMinute: limits.perMinute === undefined ? undefined : new SlidingWindowLimiter(limits.perMinute, 60_000),
        shared: this.#sharedBucket(key, limits),
      };
      this.#limiters.set(key, limiter);
    }
    return limiter;
  }

  #sharedBucket(key: string, limits: EffectiveLimits): LeasedTokenBucket | undefined {
    const store = this.#options.store;
    if (!store || (limits.perSecond === undefined && limits.perMinute === undefined)) return undefined;
    const windowMs = this.#options.leaseWindowMs;
    const budgets = [
      limits.perSecond === undefined ? Infinity : (limits.perSecond * windowMs) / 1000,
      limits.perMinute === undefined ? Infinity : (limits.perMinute * windowMs) / 60_000,
    ];
    const budget = Math.max(1, Math.floor(Math.min(...budgets)));
    return new LeasedTokenBucket({
      store,
      key: `rate-control/${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`,
      replica: this.replica,
      windowMs,
      budget,
      log: this.#options.log,
      onLostRace: this.#options.onLostRace,
    });
  }
}
