import { Binary, Bool, DateDay, Float32, Float64, Int16, Int32, Int64, List, Field, Timestamp, TimeUnit, Utf8, type DataType } from 'apache-arrow';
import pg from 'pg';
import { sourceField } from '../../core/engine/sources/record-batch-builder.js';

/**
 * PostgreSQL column types → dataset columns (docs/plugins/connector-postgres.md has the table).
 * Every value is read as PostgreSQL's text form and converted here, so nothing passes through
 * a lossy JS number or Date: int8 stays 64-bit, numeric keeps every digit, timestamps keep
 * microseconds.
 */
const scalarTypes: Record<number, () => { type: DataType; duckdb?: string }> = {
  16: () => ({ type: new Bool() }),
  21: () => ({ type: new Int16() }),
  23: () => ({ type: new Int32() }),
  20: () => ({ type: new Int64() }),
  700: () => ({ type: new Float32() }),
  701: () => ({ type: new Float64() }),
  25: () => ({ type: new Utf8() }),
  1043: () => ({ type: new Utf8() }),
  1042: () => ({ type: new Utf8() }),
  19: () => ({ type: new Utf8() }),
  1082: () => ({ type: new DateDay() }),
  1114: () => ({ type: new Timestamp(TimeUnit.MICROSECOND) }),
  1184: () => ({ type: new Timestamp(TimeUnit.MICROSECOND, 'UTC') }),
  17: () => ({ type: new Binary() }),
  114: () => ({ type: new Utf8(), duckdb: 'JSON' }),
  3802: () => ({ type: new Utf8(), duckdb: 'JSON' }),
  2950: () => ({ type: new Utf8(), duckdb: 'UUID' }),
};

/** Array type oid → element type oid, for the arrays mapped to lists. */
const arrayElements: Record<number, number> = { 1000: 16, 1005: 21, 1007: 23, 1016: 20, 1021: 700, 1022: 701, 1009: 25, 1015: 1043 };

const NUMERIC = 1700;

export interface PostgresColumn {
  readonly field: Field;
  readonly convert: (text: string) => unknown;
}

export function postgresColumn(name: string, oid: number, typeModifier: number): PostgresColumn {
  if (oid === NUMERIC) {
    // numeric(p,s): typmod = ((p << 16) | s) + 4; unconstrained numeric has no fixed scale, so it stays exact text.
    const precision = typeModifier >= 4 ? ((typeModifier - 4) >> 16) & 0xffff : 0;
    const scale = typeModifier >= 4 ? (typeModifier - 4) & 0xffff : 0;
    if (precision >= 1 && precision <= 38) return { field: sourceField(name, new Utf8(), `DECIMAL(${precision},${scale})`), convert: (text) => text };
    return { field: sourceField(name, new Utf8()), convert: (text) => text };
  }
  const element = arrayElements[oid];
  if (element !== undefined) {
    const elementType = scalarTypes[element]!().type;
    const parse = pg.types.getTypeParser(oid, 'text') as (text: string) => unknown[];
    const convertElement = scalarConverter(element);
    return {
      field: sourceField(name, new List(new Field('item', elementType, true))),
      convert: (text) => parse(text).map((item) => (item === null ? null : convertElement(String(item)))),
    };
  }
  const scalar = scalarTypes[oid];
  if (!scalar) return { field: sourceField(name, new Utf8()), convert: (text) => text };
  const { type, duckdb } = scalar();
  return { field: sourceField(name, type, duckdb), convert: scalarConverter(oid) };
}

function scalarConverter(oid: number): (text: string) => unknown {
  switch (oid) {
    case 16: return (text) => text === 't';
    case 21: case 23: return (text) => Number(text);
    case 20: return (text) => BigInt(text);
    case 700: case 701: return (text) => (text === 'NaN' ? Number.NaN : text === 'Infinity' ? Infinity : text === '-Infinity' ? -Infinity : Number(text));
    case 1082: return parseDate;
    case 1114: case 1184: return parseTimestampMicros;
    case 17: return (text) => Buffer.from(text.slice(2), 'hex');
    default: return (text) => text;
  }
}

function parseDate(text: string): Date {
  const match = /^(\d{4,})-(\d\d)-(\d\d)$/.exec(text);
  if (!match) throw new Error(`date "${text}" is outside what the engine stores (BC dates and infinity are not supported)`);
  return new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
}

/** `2024-01-02 03:04:05.123456+05:30` (the session runs in UTC) → microseconds since the epoch, as a bigint. */
function parseTimestampMicros(text: string): bigint {
  const match = /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?)?$/.exec(text);
  if (!match) throw new Error(`timestamp "${text}" is outside what the engine stores (BC timestamps and infinity are not supported)`);
  const [, year, month, day, hour, minute, second, fraction = '', sign, offsetHours = '0', offsetMinutes = '0', offsetSeconds = '0'] = match;
  const millis = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const offset = (Number(offsetHours) * 3600 + Number(offsetMinutes) * 60 + Number(offsetSeconds)) * (sign === '-' ? -1 : 1);
  return (BigInt(millis) / 1000n - BigInt(offset)) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
}
