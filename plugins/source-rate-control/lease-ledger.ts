/**
 * The shared state of one limiter (one origin with one set of limits), as stored in the
 * object store: the current lease window, the tokens leased to each replica in it, and each
 * replica's last reported demand. Every change is a compare-and-swap of the whole document.
 */
export interface LeaseLedger {
  readonly format: 1;
  /** Wall-clock window index: floor(epoch ms / windowMs). */
  window: number;
  windowMs: number;
  /** Tokens all replicas together may spend in one window. */
  budget: number;
  /** Tokens leased in `window`, by replica id. */
  leases: Record<string, number>;
  /** Demand each replica reported, and the window it last did so. */
  replicas: Record<string, { demand: number; seen: number }>;
}

export interface LeaseRequest {
  readonly replica: string;
  /** Average outstanding requests (waiting or in flight) since the replica's last lease. */
  readonly demand: number;
  readonly window: number;
  readonly windowMs: number;
  readonly budget: number;
  /** `lease`: the replica's first lease in this window; `top-up`: it spent its lease and wants unclaimed tokens. */
  readonly mode: 'lease' | 'top-up';
}

/** Replicas silent for this many windows no longer count (they stopped or lost their demand). */
const STALE_WINDOWS = 2;

/**
 * Grants tokens for one replica and returns the new ledger (the input is not changed).
 * A first lease is the replica's demand-weighted share of the budget; a top-up takes only
 * tokens neither leased nor reserved for active replicas that have not leased yet. Total
 * leases in a window never exceed the budget.
 */
export function grantLease(current: LeaseLedger | undefined, request: LeaseRequest): { ledger: LeaseLedger; granted: number } {
  const ledger: LeaseLedger =
    current && current.windowMs === request.windowMs && current.budget === request.budget
      ? structuredClone(current)
      : { format: 1, window: request.window, windowMs: request.windowMs, budget: request.budget, leases: {}, replicas: { ...(current?.replicas ?? {}) } };
  if (request.window < ledger.window) return { ledger, granted: 0 }; // this replica's clock is behind: wait for the window
  if (request.window > ledger.window) {
    ledger.window = request.window;
    ledger.leases = {};
  }
  ledger.replicas[request.replica] = { demand: Math.max(request.demand, 0.001), seen: request.window };
  for (const [replica, entry] of Object.entries(ledger.replicas)) {
    if (entry.seen < request.window - STALE_WINDOWS) delete ledger.replicas[replica];
  }
  const totalDemand = Object.values(ledger.replicas).reduce((sum, entry) => sum + entry.demand, 0);
  const leased = Object.values(ledger.leases).reduce((sum, tokens) => sum + tokens, 0);
  const remaining = Math.max(0, ledger.budget - leased);
  const share = (replica: string) => Math.floor((ledger.budget * ledger.replicas[replica]!.demand) / totalDemand);
  let granted: number;
  if (request.mode === 'lease' && ledger.leases[request.replica] === undefined) {
    granted = Math.min(remaining, Math.max(1, share(request.replica)));
  } else {
    const reserved = Object.keys(ledger.replicas)
      .filter((replica) => replica !== request.replica && ledger.leases[replica] === undefined)
      .reduce((sum, replica) => sum + share(replica), 0);
    granted = Math.max(0, remaining - reserved);
  }
  ledger.leases[request.replica] = (ledger.leases[request.replica] ?? 0) + granted;
  return { ledger, granted };
}
