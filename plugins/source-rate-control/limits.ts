import { QuarryError } from '../../core/errors/quarry-error.js';
import { parseDuration } from '../../core/units.js';

/** The limits that apply to one upstream request, after dataset → runtime → unset precedence. */
export interface EffectiveLimits {
  readonly maxConcurrent: number | undefined;
  readonly perSecond: number | undefined;
  readonly perMinute: number | undefined;
  /** Random delay before each request, only while some limit is configured. */
  readonly jitterMinMs: number;
  readonly jitterMaxMs: number;
}

/** `runtime.params` as validated by the core (integers and durations already parsed). */
export interface RuntimeRateParams {
  readonly http_max_concurrent_requests?: number;
  readonly http_requests_per_second_limit?: number;
  readonly http_requests_per_minute_limit?: number;
  readonly http_rate_control_jitter_min?: number;
  readonly http_rate_control_jitter_max?: number;
}

/** Per-dataset override keys, as written in a dataset's `params`. */
export const DATASET_KEYS = {
  maxConcurrent: 'max_concurrent_requests',
  perSecond: 'requests_per_second_limit',
  perMinute: 'requests_per_minute_limit',
  jitterMin: 'rate_control_jitter_min',
  jitterMax: 'rate_control_jitter_max',
} as const;

const DEFAULT_JITTER_MIN_MS = 5;
const DEFAULT_JITTER_MAX_MS = 10;

export function effectiveLimits(runtime: RuntimeRateParams, dataset: Readonly<Record<string, string>> | undefined, datasetName = '(unnamed)'): EffectiveLimits | undefined {
  const params = dataset ?? {};
  const maxConcurrent = positiveInteger(params, DATASET_KEYS.maxConcurrent, datasetName) ?? runtime.http_max_concurrent_requests;
  const perSecond = positiveInteger(params, DATASET_KEYS.perSecond, datasetName) ?? runtime.http_requests_per_second_limit;
  const perMinute = positiveInteger(params, DATASET_KEYS.perMinute, datasetName) ?? runtime.http_requests_per_minute_limit;
  const jitterMin = duration(params, DATASET_KEYS.jitterMin, datasetName) ?? runtime.http_rate_control_jitter_min;
  const jitterMax = duration(params, DATASET_KEYS.jitterMax, datasetName) ?? runtime.http_rate_control_jitter_max;
  if (maxConcurrent === undefined && perSecond === undefined && perMinute === undefined) return undefined;
  const jitterMinMs = jitterMin ?? Math.min(DEFAULT_JITTER_MIN_MS, jitterMax ?? DEFAULT_JITTER_MIN_MS);
  const jitterMaxMs = jitterMax ?? Math.max(DEFAULT_JITTER_MAX_MS, jitterMinMs);
  if (jitterMinMs > jitterMaxMs) {
    throw new QuarryError('RATE_CONTROL_PARAM_INVALID', `dataset ${datasetName}: the rate-control jitter minimum (${jitterMinMs} ms) is greater than its maximum (${jitterMaxMs} ms); set ${DATASET_KEYS.jitterMin} <= ${DATASET_KEYS.jitterMax} (or the runtime.params http_rate_control_jitter_* keys)`);
  }
  return { maxConcurrent, perSecond, perMinute, jitterMinMs, jitterMaxMs };
}

/** Checks a dataset's override keys at start-up, so a typo fails early instead of at the first request. */
export function validateDatasetOverrides(runtime: RuntimeRateParams, datasetName: string, params: Readonly<Record<string, string>>): void {
  effectiveLimits(runtime, params, datasetName);
}

/** Limiters are shared by every request with the same origin and the same limits. */
export function limiterKey(origin: string, limits: EffectiveLimits): string {
  return `${origin}|concurrent=${limits.maxConcurrent ?? '-'}|second=${limits.perSecond ?? '-'}|minute=${limits.perMinute ?? '-'}`;
}

function positiveInteger(params: Readonly<Record<string, string>>, key: string, dataset: string): number | undefined {
  const text = params[key];
  if (text === undefined) return undefined;
  if (!/^\s*\d+\s*$/.test(String(text)) || Number(text) < 1) {
    throw new QuarryError('RATE_CONTROL_PARAM_INVALID', `dataset ${dataset}: params.${key} "${text}" is not valid; use a whole number of 1 or more`);
  }
  return Number(text);
}

function duration(params: Readonly<Record<string, string>>, key: string, dataset: string): number | undefined {
  const text = params[key];
  if (text === undefined) return undefined;
  const ms = parseDuration(String(text));
  if (ms === undefined) throw new QuarryError('RATE_CONTROL_PARAM_INVALID', `dataset ${dataset}: params.${key} "${text}" is not a duration; e.g. 5ms or 1s`);
  return ms;
}
