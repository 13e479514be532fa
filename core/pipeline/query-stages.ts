/**
 * The stages one query's time is charged to, in the order it passes them (docs/performance.md):
 * - `door_in`: from the request's arrival to the pipeline (HTTP parse, routing, admission, body);
 * - `classify`: the statement's kind (a prepare for a new text; nothing when remembered);
 * - `before`: `query.before` taps (the statement policy, rate control);
 * - `cache_lookup`: `cache.lookup` taps;
 * - `routed`: `query.instead` taps (a cluster's executors);
 * - `prepare`: an engine connection and the prepared statement (kept or new);
 * - `execute`: running it to its first chunk;
 * - `stream`: fetching the rest and converting it to Arrow (time inside the batches' `next`);
 * - `door_out`: the door encoding and writing, between batches;
 * - `after`: `query.after` taps (task history, telemetry).
 * What comes after the stream ended (the door's last write, a results-cache store) is not in it.
 */
export const QUERY_STAGES = ['door_in', 'classify', 'before', 'cache_lookup', 'routed', 'prepare', 'execute', 'stream', 'door_out', 'after'] as const;
export type QueryStage = (typeof QUERY_STAGES)[number];

/** Milliseconds charged to each stage of one query. Laps cost a `performance.now()` each. */
export class StageClock {
  readonly ms: Record<QueryStage, number> = { door_in: 0, classify: 0, before: 0, cache_lookup: 0, routed: 0, prepare: 0, execute: 0, stream: 0, door_out: 0, after: 0 };
  #last: number;

  /** `since`: when the query's first stage began (the request's arrival), on the `performance.now()` clock. */
  constructor(since: number) {
    this.#last = since;
  }

  /** Charges the time since the last lap to `stage`; returns now. */
  lap(stage: QueryStage): number {
    const now = performance.now();
    this.ms[stage] += now - this.#last;
    this.#last = now;
    return now;
  }
}
