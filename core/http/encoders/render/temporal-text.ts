/**
 * ISO-8601 text for dates, times and timestamps, written as bytes. Proleptic Gregorian
 * calendar, astronomical years (year 0 = 1 BC); years outside 0000–9999 use the expanded
 * form `±YYYYYY` as JavaScript's `toISOString` does. Fractions keep the unit's precision
 * with trailing zeros dropped, and are left out when zero.
 */
import { DIGIT_PAIRS, writeAsciiText, writePaddedDigits, writeSafeInteger } from './number-text.js';

/** DuckDB's `infinity` / `-infinity` dates (days = ±(2^31 − 1)). */
export const DATE_INFINITY_DAYS = 2147483647;

/** Worst-case bytes of a rendered date (expanded year) and timestamp, quotes excluded. */
export const MAX_DATE_BYTES = 16;
export const MAX_TIMESTAMP_BYTES = 40;

/**
 * Recently rendered dates, direct-mapped by day number: result columns repeat dates (and
 * timestamps of one day share theirs), and copying 10 bytes beats the calendar arithmetic.
 */
const CACHE_SLOTS = 4096;
const cachedDays = new Int32Array(CACHE_SLOTS).fill(-2147483648);
const cachedText = new Uint8Array(CACHE_SLOTS * 10);

/** `YYYY-MM-DD` of a day count since 1970-01-01. */
export function writeDate(bytes: Uint8Array, position: number, days: number): number {
  const slot = days & (CACHE_SLOTS - 1);
  const base = slot * 10;
  if (cachedDays[slot] === days) {
    for (let k = 0; k < 10; k++) bytes[position + k] = cachedText[base + k]!;
    return position + 10;
  }
  const end = writeCalendarDate(bytes, position, days);
  if (end - position === 10) {
    cachedDays[slot] = days;
    for (let k = 0; k < 10; k++) cachedText[base + k] = bytes[position + k]!;
  }
  return end;
}

/** Howard Hinnant's civil-from-days. */
function writeCalendarDate(bytes: Uint8Array, position: number, days: number): number {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year >= 0 && year <= 9999) {
    position = writePaddedDigits(bytes, position, year, 4);
  } else {
    bytes[position++] = year < 0 ? 45 : 43;
    const magnitude = Math.abs(year);
    position = magnitude < 1000000 ? writePaddedDigits(bytes, position, magnitude, 6) : writeSafeInteger(bytes, position, magnitude);
  }
  bytes[position++] = 45;
  position = writePaddedDigits(bytes, position, month, 2);
  bytes[position++] = 45;
  return writePaddedDigits(bytes, position, day, 2);
}

/**
 * `HH:MM:SS[.fraction]` of `units` since midnight, where one second is `unitsPerSecond`
 * (1, 1e3, 1e6, 1e9) and the fraction has `fractionDigits` (0, 3, 6, 9) digits at most.
 */
export function writeTimeOfDay(bytes: Uint8Array, position: number, units: number, unitsPerSecond: number, fractionDigits: number): number {
  const seconds = Math.floor(units / unitsPerSecond);
  const fraction = units - seconds * unitsPerSecond;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor(seconds / 60) - hours * 60;
  position = writePaddedDigits(bytes, position, hours, 2);
  bytes[position++] = 58;
  position = writePaddedDigits(bytes, position, minutes, 2);
  bytes[position++] = 58;
  position = writePaddedDigits(bytes, position, seconds - hours * 3600 - minutes * 60, 2);
  if (fraction === 0) return position;
  bytes[position++] = 46;
  const end = writePaddedDigits(bytes, position, fraction, fractionDigits);
  let trimmed = end;
  while (bytes[trimmed - 1] === 48) trimmed--;
  return trimmed;
}

/** `HH:MM:SS` of a second of the day (0–86400), two digits at a time. */
function writeClock(bytes: Uint8Array, position: number, secondOfDay: number): number {
  const hours = (secondOfDay / 3600) | 0;
  const rest = secondOfDay - hours * 3600;
  const minutes = (rest / 60) | 0;
  const seconds = rest - minutes * 60;
  bytes[position] = DIGIT_PAIRS[hours * 2]!;
  bytes[position + 1] = DIGIT_PAIRS[hours * 2 + 1]!;
  bytes[position + 2] = 58;
  bytes[position + 3] = DIGIT_PAIRS[minutes * 2]!;
  bytes[position + 4] = DIGIT_PAIRS[minutes * 2 + 1]!;
  bytes[position + 5] = 58;
  bytes[position + 6] = DIGIT_PAIRS[seconds * 2]!;
  bytes[position + 7] = DIGIT_PAIRS[seconds * 2 + 1]!;
  return position + 8;
}

/**
 * The common case, specialised: a microsecond timestamp known to be within ±2^53 (all of
 * years 1685–2255). Same text as `writeTimestamp(…, 2)`.
 */
export function writeTimestampMicros(bytes: Uint8Array, position: number, value: number): number {
  const days = Math.floor(value / 86_400_000_000);
  const microsOfDay = value - days * 86_400_000_000;
  const secondOfDay = Math.floor(microsOfDay / 1_000_000);
  const fraction = microsOfDay - secondOfDay * 1_000_000;
  position = writeDate(bytes, position, days);
  bytes[position++] = 84;
  position = writeClock(bytes, position, secondOfDay);
  if (fraction === 0) return position;
  bytes[position++] = 46;
  let end = writePaddedDigits(bytes, position, fraction, 6);
  while (bytes[end - 1] === 48) end--;
  return end;
}

export const UNITS_PER_SECOND = [1, 1_000, 1_000_000, 1_000_000_000] as const;
export const FRACTION_DIGITS = [0, 3, 6, 9] as const;

/**
 * `YYYY-MM-DDTHH:MM:SS[.fraction]` of a timestamp of `value` units since the epoch, given
 * as a double when exact (|value| < 2^53) or as a bigint otherwise. `±infinity`
 * (DuckDB's ±(2^63 − 1)) are written as the words `infinity` / `-infinity`.
 */
export function writeTimestamp(bytes: Uint8Array, position: number, value: number | bigint, unit: 0 | 1 | 2 | 3): number {
  const unitsPerSecond = UNITS_PER_SECOND[unit];
  const unitsPerDay = unitsPerSecond * 86400;
  let days: number;
  let ofDay: number;
  if (typeof value === 'number') {
    days = Math.floor(value / unitsPerDay);
    ofDay = value - days * unitsPerDay;
  } else {
    if (value === 9223372036854775807n) return writeAsciiText(bytes, position, 'infinity');
    if (value === -9223372036854775807n) return writeAsciiText(bytes, position, '-infinity');
    const perDay = BigInt(unitsPerDay);
    let bigDays = value / perDay;
    if (value % perDay < 0n) bigDays -= 1n;
    days = Number(bigDays);
    ofDay = Number(value - bigDays * perDay);
  }
  position = writeDate(bytes, position, days);
  bytes[position++] = 84;
  return writeTimeOfDay(bytes, position, ofDay, unitsPerSecond, FRACTION_DIGITS[unit]);
}
