import type { Engine } from '../engine/engine.js';
import type { Hooks } from '../hooks/hooks.js';
import type { PhaseMachine } from '../lifecycle/phase.js';
import type { Logger } from '../log.js';
import type { Manifest } from '../manifest/types.js';
import type { PeerAuthentication } from '../pipeline/admission.js';
import type { QueryPipeline } from '../pipeline/pipeline.js';
import type { DoPutRateLimiter } from './do-put-rate-limit.js';
import type { FlightStats } from './flight-stats.js';
import type { FlightLimits } from './limits.js';
import type { DatasetCatalog } from './metadata/dataset-catalog.js';
import type { RunningStatements } from './running-statements.js';
import type { StatementStore } from './statement-store.js';

/** Everything a Flight handler may use; one per listener. */
export interface FlightContext {
  readonly hooks: Hooks;
  readonly pipeline: QueryPipeline;
  readonly engine: Engine;
  readonly manifest: Manifest;
  readonly log: Logger;
  readonly phase: PhaseMachine;
  readonly statements: StatementStore;
  readonly running: RunningStatements;
  readonly catalog: DatasetCatalog;
  readonly limits: FlightLimits;
  /** Undefined when runtime.flight.do_put_rate_limit_enabled is false. */
  readonly rateLimiter: DoPutRateLimiter | undefined;
  readonly stats: FlightStats;
  /** Replaces `hooks.auth` on a listener whose TLS layer authenticates every peer (a cluster node listener). */
  readonly authenticate?: PeerAuthentication | undefined;
}
