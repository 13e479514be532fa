import type { Hooks } from '../hooks/hooks.js';

/** A task another plugin reports (an MCP tool call, a search, ...). */
export interface TaskInput {
  /** `tool_use::sql`, `search`, ... (Spice's task names). */
  task: string;
  input: string;
  capturedOutput?: string;
  startTime: Date;
  endTime: Date;
  errorMessage?: string;
  labels?: Record<string, string>;
  /** Defaults to a new trace. */
  traceId?: string;
  parentSpanId?: string;
}

/** What the task-history plugin offers the rest of the runtime. */
export interface TaskHistory {
  /** Queues a row; returns its span id (for children's parentSpanId), or undefined when dropped. */
  record(task: TaskInput): string | undefined;
  /** Writes every queued row now (after plans still being captured). */
  flush(): Promise<void>;
  /** Deletes rows older than retention_period now (the timer does it every retention_check_interval). */
  enforceRetention(): Promise<void>;
}

/**
 * Keyed by the runtime's hooks object: one per runtime, no globals shared between runtimes
 * in one process. The task-history plugin registers itself here (in core, so a plugin
 * reporting tasks never imports that plugin, which may be disabled); plugins reach it with
 * `taskHistory(runtime.hooks)`, e.g. the MCP plugin:
 *
 *   taskHistory(runtime.hooks)?.record({ task: `tool_use::${tool}`, input, startTime, endTime, labels: { tool } });
 */
const instances = new WeakMap<Hooks, TaskHistory>();

export function taskHistory(hooks: Hooks): TaskHistory | undefined {
  return instances.get(hooks);
}

export function registerTaskHistory(hooks: Hooks, history: TaskHistory): void {
  instances.set(hooks, history);
}

