/**
 * Live figures for the runtime pane, from the runtime's own metrics as they are recorded:
 * queries per second and p95 of `query_duration_ms` (recorded by the telemetry plugin), and the
 * hit ratio of `results_cache_hits` / `results_cache_misses` (the results cache), over the last
 * minute. Only the last minute is kept, in arrays that drop their head as they go.
 */
import type { MetricsRegistry } from '../../core/metrics/registry.js';

export const FIGURES_WINDOW_MS = 60_000;
/** At most this many durations are kept for the p95 (a busy minute keeps its most recent ones). */
const KEPT_DURATIONS = 50_000;

export interface LiveFiguresReport {
  readonly window_seconds: number;
  readonly queries_per_second: number | null;
  readonly p95_ms: number | null;
  readonly cache_hit_ratio: number | null;
  readonly queries_total: number | null;
  /** Why a figure is null: the plugin that records it is off. */
  readonly unavailable: readonly string[];
}

/** Values with the times they were recorded, oldest first (times never go back). */
class TimedValues {
  private times: number[] = [];
  private values: number[] = [];

  add(time: number, value: number): void {
    this.times.push(time);
    this.values.push(value);
    // Trimmed in steps, not per value: a copy of the array per recording would cost O(n) each.
    if (this.times.length > KEPT_DURATIONS * 1.5) this.keepFrom(this.times.length - KEPT_DURATIONS);
  }

  /** Values recorded at or after `since` (older ones are dropped for good). */
  since(since: number): number[] {
    let low = 0;
    let high = this.times.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.times[middle]! < since) low = middle + 1;
      else high = middle;
    }
    this.keepFrom(low);
    return this.values;
  }

  private keepFrom(first: number): void {
    if (first === 0) return;
    this.times = this.times.slice(first);
    this.values = this.values.slice(first);
  }
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

export function percentile(values: readonly number[], fraction: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

export class LiveFigures {
  private readonly durations = new TimedValues();
  private readonly hits = new TimedValues();
  private readonly misses = new TimedValues();
  private readonly startedAt: number;

  constructor(
    private readonly metrics: MetricsRegistry,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startedAt = now();
    // Cheap per recording: two string compares unless it is one of the three series.
    metrics.subscribe((name, _kind, value) => {
      if (name === 'query_duration_ms') this.durations.add(this.now(), value);
      // Counters may be added to by 0 (a series made visible): only what was added counts.
      else if (name === 'results_cache_hits' && value > 0) this.hits.add(this.now(), value);
      else if (name === 'results_cache_misses' && value > 0) this.misses.add(this.now(), value);
    });
  }

  report(): LiveFiguresReport {
    const now = this.now();
    const since = now - FIGURES_WINDOW_MS;
    const windowSeconds = Math.min(FIGURES_WINDOW_MS, Math.max(1, now - this.startedAt)) / 1000;
    const unavailable: string[] = [];
    const timed = this.metrics.snapshot('query_duration_ms') !== undefined;
    if (!timed) unavailable.push('queries/s and p95: the telemetry plugin is off');
    const cached = this.metrics.snapshot('results_cache_hits') !== undefined;
    if (!cached) unavailable.push('cache hit ratio: the results cache is off');
    const durations = this.durations.since(since);
    const hits = sum(this.hits.since(since));
    const lookups = hits + sum(this.misses.since(since));
    const executions = this.metrics.snapshot('query_executions');
    return {
      window_seconds: Math.round(windowSeconds),
      queries_per_second: timed ? durations.length / windowSeconds : null,
      p95_ms: timed ? percentile(durations, 0.95) : null,
      cache_hit_ratio: cached && lookups > 0 ? hits / lookups : null,
      queries_total: executions === undefined ? null : executions.points.reduce((sum, point) => sum + point.value, 0),
      unavailable,
    };
  }
}
