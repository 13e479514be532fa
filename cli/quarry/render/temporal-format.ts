import { TimeUnit } from 'apache-arrow';

/**
 * Dates, times, timestamps and intervals as DuckDB prints them (`2024-01-02 03:04:05.123`,
 * `1 year 2 months 3 days 04:05:06`). Works on the raw integers of the Arrow buffers with
 * bigint arithmetic: apache-arrow's own getters turn timestamps into JS milliseconds and
 * would drop microseconds and nanoseconds.
 */

const unitsPerSecond: Record<TimeUnit, bigint> = {
  [TimeUnit.SECOND]: 1n,
  [TimeUnit.MILLISECOND]: 1_000n,
  [TimeUnit.MICROSECOND]: 1_000_000n,
  [TimeUnit.NANOSECOND]: 1_000_000_000n,
};
const fractionDigits: Record<TimeUnit, number> = {
  [TimeUnit.SECOND]: 0,
  [TimeUnit.MILLISECOND]: 3,
  [TimeUnit.MICROSECOND]: 6,
  [TimeUnit.NANOSECOND]: 9,
};

/** JS Dates reach ±8.64e15 ms; beyond that the raw number is shown rather than a wrong date. */
const MAX_DATE_MS = 8_640_000_000_000_000n;
const MS_PER_DAY = 86_400_000n;
const NANOS_PER_SECOND = 1_000_000_000n;

function floorDivide(value: bigint, divisor: bigint): bigint {
  const quotient = value / divisor;
  return value % divisor !== 0n && value < 0n !== divisor < 0n ? quotient - 1n : quotient;
}

function pad(value: number | bigint, width: number): string {
  return String(value).padStart(width, '0');
}

/** `.123` for a fraction of 123000 with 6 digits; empty when the fraction is zero. */
function fractionText(fraction: bigint, digits: number): string {
  if (fraction === 0n || digits === 0) return '';
  return `.${pad(fraction, digits).replace(/0+$/, '')}`;
}

/** `YYYY-MM-DD` of a UTC instant given in milliseconds, with DuckDB's ` (BC)` for years before 1. */
function civilDate(milliseconds: bigint): string | undefined {
  if (milliseconds > MAX_DATE_MS || milliseconds < -MAX_DATE_MS) return undefined;
  const date = new Date(Number(milliseconds));
  const year = date.getUTCFullYear();
  const text = `${pad(year > 0 ? year : 1 - year, 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`;
  return year > 0 ? text : `${text} (BC)`;
}

export function formatDateFromDays(days: number): string {
  return civilDate(BigInt(days) * MS_PER_DAY) ?? `${days} days`;
}

export function formatDateFromMilliseconds(milliseconds: bigint): string {
  return civilDate(floorDivide(milliseconds, MS_PER_DAY) * MS_PER_DAY) ?? `${milliseconds} ms`;
}

/** `2024-01-02 03:04:05.123456`, with `+00` when the column carries a time zone (values are UTC instants). */
export function formatTimestamp(value: bigint, unit: TimeUnit, withZone: boolean): string {
  const perSecond = unitsPerSecond[unit];
  const seconds = floorDivide(value, perSecond);
  const fraction = value - seconds * perSecond;
  const milliseconds = seconds * 1000n;
  const date = civilDate(milliseconds);
  if (date === undefined) return String(value);
  const bc = date.endsWith(' (BC)');
  const secondOfDay = Number(seconds - floorDivide(milliseconds, MS_PER_DAY) * 86_400n);
  const clock = `${pad(Math.floor(secondOfDay / 3600), 2)}:${pad(Math.floor(secondOfDay / 60) % 60, 2)}:${pad(secondOfDay % 60, 2)}`;
  const text = `${bc ? date.slice(0, -5) : date} ${clock}${fractionText(fraction, fractionDigits[unit])}${withZone ? '+00' : ''}`;
  return bc ? `${text} (BC)` : text;
}

/** `HH:MM:SS[.fraction]` of a time of day (or a duration: hours are not wrapped at 24). */
export function formatTimeOfDay(value: bigint, unit: TimeUnit): string {
  return clockText(value * (NANOS_PER_SECOND / unitsPerSecond[unit]));
}

function clockText(nanoseconds: bigint): string {
  const negative = nanoseconds < 0n;
  const magnitude = negative ? -nanoseconds : nanoseconds;
  const totalSeconds = magnitude / NANOS_PER_SECOND;
  const fraction = magnitude % NANOS_PER_SECOND;
  const hours = totalSeconds / 3600n;
  const minutes = (totalSeconds / 60n) % 60n;
  const seconds = totalSeconds % 60n;
  return `${negative ? '-' : ''}${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}${fractionText(fraction, 9)}`;
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${Math.abs(count) === 1 ? '' : 's'}`;
}

/** `1 year 2 months 3 days 04:05:06.5`; `00:00:00` for an empty interval. */
export function formatInterval(months: number, days: number, nanoseconds: bigint): string {
  const parts: string[] = [];
  const years = Math.trunc(months / 12);
  const restMonths = months % 12;
  if (years !== 0) parts.push(plural(years, 'year'));
  if (restMonths !== 0) parts.push(plural(restMonths, 'month'));
  if (days !== 0) parts.push(plural(days, 'day'));
  if (nanoseconds !== 0n || parts.length === 0) parts.push(clockText(nanoseconds));
  return parts.join(' ');
}

/** A duration in `unit`, shown like an interval of hours, minutes and seconds. */
export function formatDuration(value: bigint, unit: TimeUnit): string {
  return formatInterval(0, 0, value * (NANOS_PER_SECOND / unitsPerSecond[unit]));
}

/** The signed 64-bit integer stored as two 32-bit words (low word first), as in MonthDayNano intervals. */
export function int64FromWords(low: number, high: number): bigint {
  return (BigInt(high) << 32n) | BigInt(low >>> 0);
}
