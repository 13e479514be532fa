import { readdirSync, readFileSync } from 'node:fs';
import { QUERY_STAGES, type QueryStage } from '../../core/pipeline/query-stages.js';

/**
 * Where each query's time went, from quarryd's `-vv` log: its `query` lines carry the time
 * charged to each stage (core/pipeline/query-stages.ts). Only engine-answered queries count
 * (`cache=BYPASS` or `MISS`).
 */
export class StageLog {
  readonly #perQuery: Array<Record<QueryStage, number>> = [];
  #pending = '';

  /** Feed quarryd's stderr as it comes. */
  readonly take = (text: string): void => {
    const lines = (this.#pending + text).split('\n');
    this.#pending = lines.pop()!;
    for (const line of lines) {
      if (!line.includes('[query] query ') || !/ cache=(?:BYPASS|MISS) /.test(line)) continue;
      const stages = {} as Record<QueryStage, number>;
      for (const stage of QUERY_STAGES) stages[stage] = Number(new RegExp(` ms_${stage}=([\\d.]+)`).exec(line)?.[1] ?? 0);
      this.#perQuery.push(stages);
    }
  };

  /** Forgets what was logged so far (the warm-up). */
  reset(): void {
    this.#perQuery.length = 0;
  }

  get count(): number {
    return this.#perQuery.length;
  }

  /** Mean milliseconds per query of each stage (means add up to the mean total, medians would not). */
  means(): Record<QueryStage, number> {
    const means = {} as Record<QueryStage, number>;
    for (const stage of QUERY_STAGES) means[stage] = this.#perQuery.reduce((sum, query) => sum + query[stage], 0) / Math.max(1, this.#perQuery.length);
    return means;
  }
}

/** CPU ms a process used so far on its main (JavaScript) thread and on all its other threads (the engine's, libuv's), from /proc. */
export function threadCpuMs(pid: number): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    if (task === String(pid)) main += ms;
    else others += ms;
  }
  return { main, others };
}
