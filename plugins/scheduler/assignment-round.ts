import { planAssignments, type AssignmentLimits, type DiscoveredDataset, type OwnershipChange } from './assignment.js';
import type { ClusterDocument } from './cluster-document.js';
import type { ClusterState } from './cluster-state.js';

export interface RoundResult {
  /** Partitions this round's committed write assigned (empty when it lost or changed nothing). */
  readonly assigned: readonly OwnershipChange[];
  readonly released: number;
  readonly unassigned: number;
  readonly liveExecutors: readonly string[];
  readonly document: ClusterDocument;
  readonly lostRaces: number;
}

/**
 * One assignment round of one scheduler: read who is live, then plan and commit against the
 * document by compare-and-swap. Discovery runs before (it may be slow); liveness is read
 * before the write, so the plan only ever moves partitions off executors whose heartbeat had
 * expired when the round looked.
 */
export async function runAssignmentRound(state: ClusterState, discovered: readonly DiscoveredDataset[], limits: AssignmentLimits, now: () => Date = () => new Date()): Promise<RoundResult> {
  const before = await state.read();
  const liveExecutors = await state.liveMembers(before, 'executor', now().getTime());
  const committed = await state.update((current) => {
    // A member that joined after `before` was read has not been checked for liveness: it just waits a round.
    const plan = planAssignments(current, discovered, liveExecutors, limits, now());
    return { document: plan.document, outcome: plan };
  });
  const plan = committed.outcome;
  return {
    assigned: committed.wrote ? plan.assigned : [],
    released: committed.wrote ? plan.released : 0,
    unassigned: plan.unassigned,
    liveExecutors,
    document: committed.document,
    lostRaces: committed.lostRaces,
  };
}
