/** Dates, times, timestamps, intervals and durations. */
import { DateUnit, IntervalUnit, type Date_, type Interval, type Time, type Timestamp } from 'apache-arrow';
import type { ByteWriter } from './byte-writer.js';
import { writeAsciiText, writeInt64Words, writeSafeInteger } from './number-text.js';
import { isNullAt, nullBitmapOf, writeNull, type ColumnRenderer, type Dialect } from './renderer.js';
import { DATE_INFINITY_DAYS, FRACTION_DIGITS, MAX_DATE_BYTES, MAX_TIMESTAMP_BYTES, UNITS_PER_SECOND, writeDate, writeTimeOfDay, writeTimestamp, writeTimestampMicros } from './temporal-text.js';

const QUOTE = 34;
const TWO_TO_32 = 4294967296;
/** DuckDB's timestamp `infinity` (2^63 − 1); `-infinity` is its negation. */
const INFINITY = 9223372036854775807n;

/** DATE (days, or Date64 milliseconds) → `"2024-01-31"`; DuckDB's ±infinity → `"infinity"`. */
export function renderDate(dialect: Dialect): ColumnRenderer {
  const quote = dialect === 'json';
  return (data, out, ends) => {
    const bytes = out.ensure(data.length * (MAX_DATE_BYTES + 2));
    const bitmap = nullBitmapOf(data);
    const inDays = (data.type as Date_).unit === DateUnit.DAY;
    const values = data.values as Int32Array;
    const words = inDays ? null : new Int32Array(values.buffer, values.byteOffset, data.length * 2);
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, dialect);
      } else {
        const days = words === null ? values[i]! : Math.floor((words[i * 2 + 1]! * TWO_TO_32 + (words[i * 2]! >>> 0)) / 86_400_000);
        if (quote) bytes[position++] = QUOTE;
        if (days === DATE_INFINITY_DAYS) position = writeAsciiText(bytes, position, 'infinity');
        else if (days === -DATE_INFINITY_DAYS) position = writeAsciiText(bytes, position, '-infinity');
        else position = writeDate(bytes, position, days);
        if (quote) bytes[position++] = QUOTE;
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

/**
 * TIMESTAMP → `"2024-01-31T12:34:56.123456"`, with `Z` when the type has a time zone
 * (Arrow stores tz-aware timestamps as UTC instants, so the UTC text is exact).
 */
export function renderTimestamp(dialect: Dialect): ColumnRenderer {
  const quote = dialect === 'json';
  return (data, out, ends) => {
    const bytes = out.ensure(data.length * (MAX_TIMESTAMP_BYTES + 3));
    const bitmap = nullBitmapOf(data);
    const type = data.type as Timestamp;
    const unit = type.unit as 0 | 1 | 2 | 3;
    const zoned = type.timezone != null && type.timezone !== '';
    const values = data.values as BigInt64Array;
    const words = new Int32Array(values.buffer, values.byteOffset, data.length * 2);
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, dialect);
      } else {
        const high = words[i * 2 + 1]!;
        const value = high >= -2097152 && high < 2097152 ? high * TWO_TO_32 + (words[i * 2]! >>> 0) : values[i]!;
        if (quote) bytes[position++] = QUOTE;
        position = unit === 2 && typeof value === 'number' ? writeTimestampMicros(bytes, position, value) : writeTimestamp(bytes, position, value, unit);
        if (zoned && typeof value === 'number') bytes[position++] = 90;
        else if (zoned && value !== INFINITY && value !== -INFINITY) bytes[position++] = 90;
        if (quote) bytes[position++] = QUOTE;
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

/** TIME → `"12:34:56.789"`. Time32 values are int32, Time64 int64 (always < 2^53 here). */
export function renderTime(dialect: Dialect): ColumnRenderer {
  const quote = dialect === 'json';
  return (data, out, ends) => {
    const bytes = out.ensure(data.length * 22);
    const bitmap = nullBitmapOf(data);
    const type = data.type as Time;
    const unit = type.unit as 0 | 1 | 2 | 3;
    const wide = type.bitWidth === 64;
    const values = data.values as Int32Array;
    const words = wide ? new Int32Array(values.buffer, values.byteOffset, data.length * 2) : values;
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, dialect);
      } else {
        const units = wide ? words[i * 2 + 1]! * TWO_TO_32 + (words[i * 2]! >>> 0) : words[i]!;
        if (quote) bytes[position++] = QUOTE;
        position = writeTimeOfDay(bytes, position, units, UNITS_PER_SECOND[unit], FRACTION_DIGITS[unit]);
        if (quote) bytes[position++] = QUOTE;
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

const MONTHS_KEY = Buffer.from('{"months":');
const DAYS_KEY = Buffer.from(',"days":');
const NANOS_KEY = Buffer.from(',"nanoseconds":');
const MILLIS_KEY = Buffer.from(',"milliseconds":');

function writeKey(bytes: Uint8Array, position: number, key: Uint8Array): number {
  for (let k = 0; k < key.length; k++) bytes[position++] = key[k]!;
  return position;
}

/**
 * INTERVAL → `{"months":1,"days":2,"nanoseconds":3}` (exact; no calendar normalisation).
 * DayTime intervals → `{"months":0,"days":d,"milliseconds":ms}`, YearMonth → `{"months":m}`
 * style with zero days. Rendered as JSON in both dialects (CSV quotes it).
 */
export function renderInterval(): ColumnRenderer {
  return (data, out: ByteWriter, ends) => {
    const bytes = out.ensure(data.length * 64);
    const bitmap = nullBitmapOf(data);
    const unit = (data.type as Interval).unit;
    const values = data.values as Int32Array;
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, 'json');
      } else if (unit === IntervalUnit.MONTH_DAY_NANO) {
        position = writeKey(bytes, position, MONTHS_KEY);
        position = writeSafeInteger(bytes, position, values[i * 4]!);
        position = writeKey(bytes, position, DAYS_KEY);
        position = writeSafeInteger(bytes, position, values[i * 4 + 1]!);
        position = writeKey(bytes, position, NANOS_KEY);
        position = writeInt64Words(bytes, position, values[i * 4 + 2]! >>> 0, values[i * 4 + 3]!, true);
        bytes[position++] = 125;
      } else if (unit === IntervalUnit.DAY_TIME) {
        position = writeKey(bytes, position, MONTHS_KEY);
        bytes[position++] = 48;
        position = writeKey(bytes, position, DAYS_KEY);
        position = writeSafeInteger(bytes, position, values[i * 2]!);
        position = writeKey(bytes, position, MILLIS_KEY);
        position = writeSafeInteger(bytes, position, values[i * 2 + 1]!);
        bytes[position++] = 125;
      } else {
        position = writeKey(bytes, position, MONTHS_KEY);
        position = writeSafeInteger(bytes, position, values[i]!);
        bytes[position++] = 125;
      }
      ends[i] = position;
    }
    out.position = position;
  };
}
