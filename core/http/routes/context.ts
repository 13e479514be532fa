import type { Engine } from '../../engine/engine.js';
import type { Hooks } from '../../hooks/hooks.js';
import type { Logger } from '../../log.js';
import type { QueryPipeline } from '../../pipeline/pipeline.js';

/** Listener states as `/v1/status` and `quarry status` show them (Spice's names). */
export type ListenerState = 'Initializing' | 'Ready' | 'Disabled' | 'Error' | 'ShuttingDown';

export interface ListenerStatus {
  readonly name: string;
  readonly endpoint: string;
  readonly status: ListenerState;
}

/** What the core routes need from the runtime. */
export interface RouteContext {
  readonly hooks: Hooks;
  readonly log: Logger;
  readonly pipeline: QueryPipeline;
  readonly engine: Engine;
  isReady(): boolean;
  listeners(): ListenerStatus[];
}
