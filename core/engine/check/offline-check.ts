/**
 * What `quarryd --check` hands the `check` hook's taps: a scratch engine holding the datasets
 * whose columns are known without the network (and the manifest's views), where a plugin
 * binds what it would create at start-up (user functions' bodies, say) and reports what
 * would fail, in the same one list as the core's problems.
 */
export interface OfflineCheck {
  /** Runs one statement on the scratch engine (DDL a plugin makes at start-up, a DESCRIBE probe). Never user SQL. */
  run(sql: string): Promise<void>;
  /** True when an error of `run` is about a dataset whose columns need the network: not a problem, only unchecked. */
  readsUnchecked(error: unknown): boolean;
  /** Adds a problem at a manifest path (`functions[2].body`), said as start-up would say it. */
  report(path: string, message: string): void;
}
