/**
 * The JSON value the encoder must produce for a DuckDB value, derived from node-api's
 * reader with independent arithmetic (JS Date for calendars, BigInt for units). This is
 * the executable form of docs/json-encoding.md.
 */
import {
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  type DuckDBArrayValue,
  type DuckDBArrayType,
  type DuckDBBlobValue,
  type DuckDBDateValue,
  type DuckDBIntervalValue,
  type DuckDBListType,
  type DuckDBListValue,
  type DuckDBMapType,
  type DuckDBMapValue,
  type DuckDBStructType,
  type DuckDBStructValue,
  type DuckDBType,
  type DuckDBUnionType,
  type DuckDBUnionValue,
  type DuckDBValue,
} from '@duckdb/node-api';
import { num, parseExactJson, type ExactJson } from './exact-json.js';

const INFINITY = 9223372036854775807n;

export function isoDate(days: number): string {
  if (days === 2147483647) return 'infinity';
  if (days === -2147483647) return '-infinity';
  return new Date(days * 86_400_000).toISOString().split('T')[0]!;
}

export function isoTimestamp(units: bigint, perSecond: bigint, digits: number, zoned: boolean): string {
  if (units === INFINITY) return 'infinity';
  if (units === -INFINITY) return '-infinity';
  let seconds = units / perSecond;
  let fraction = units % perSecond;
  if (fraction < 0n) {
    fraction += perSecond;
    seconds -= 1n;
  }
  let text = new Date(Number(seconds) * 1000).toISOString().replace(/\.000Z$/, '');
  if (fraction !== 0n) text += '.' + fraction.toString().padStart(digits, '0').replace(/0+$/, '');
  return zoned ? text + 'Z' : text;
}

export function timeOfDay(units: bigint, perSecond: bigint, digits: number): string {
  return isoTimestamp(units, perSecond, digits, false).split('T')[1]!;
}

function float32Text(value: number): string {
  for (let precision = 1; precision <= 9; precision++) {
    const candidate = Number(value.toPrecision(precision));
    if (Math.fround(candidate) === value) return String(candidate);
  }
  return String(value);
}

export function expectedJson(value: DuckDBValue, type: DuckDBType): ExactJson {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return value as boolean;
    case DuckDBTypeId.TINYINT: case DuckDBTypeId.SMALLINT: case DuckDBTypeId.INTEGER: case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UTINYINT: case DuckDBTypeId.USMALLINT: case DuckDBTypeId.UINTEGER: case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT: case DuckDBTypeId.UHUGEINT: case DuckDBTypeId.DECIMAL: case DuckDBTypeId.BIGNUM:
      return num(String(value));
    case DuckDBTypeId.FLOAT:
      return Number.isFinite(value) ? num(float32Text(value as number)) : null;
    case DuckDBTypeId.DOUBLE:
      return Number.isFinite(value) ? num(String(value)) : null;
    case DuckDBTypeId.VARCHAR:
      return type.alias === 'JSON' ? parseExactJson(value as string) : (value as string);
    case DuckDBTypeId.BLOB:
    case DuckDBTypeId.GEOMETRY:
      return Buffer.from((value as DuckDBBlobValue).bytes).toString('base64');
    case DuckDBTypeId.DATE:
      return isoDate((value as DuckDBDateValue).days);
    case DuckDBTypeId.TIMESTAMP:
      return isoTimestamp((value as { micros: bigint }).micros, 1_000_000n, 6, false);
    case DuckDBTypeId.TIMESTAMP_TZ:
      return isoTimestamp((value as { micros: bigint }).micros, 1_000_000n, 6, true);
    case DuckDBTypeId.TIMESTAMP_S:
      return isoTimestamp((value as { seconds: bigint }).seconds, 1n, 0, false);
    case DuckDBTypeId.TIMESTAMP_MS:
      return isoTimestamp((value as { millis: bigint }).millis, 1000n, 3, false);
    case DuckDBTypeId.TIMESTAMP_NS:
      return isoTimestamp((value as { nanos: bigint }).nanos, 1_000_000_000n, 9, false);
    case DuckDBTypeId.TIME:
      return timeOfDay((value as { micros: bigint }).micros, 1_000_000n, 6);
    case DuckDBTypeId.TIME_NS:
      return timeOfDay((value as { nanos: bigint }).nanos, 1_000_000_000n, 9);
    case DuckDBTypeId.INTERVAL: {
      const interval = value as DuckDBIntervalValue;
      return { months: num(interval.months), days: num(interval.days), nanoseconds: num(interval.micros * 1000n) };
    }
    case DuckDBTypeId.VARIANT:
      return parseExactJson(JSON.stringify(JsonDuckDBValueConverter(value, type, JsonDuckDBValueConverter)));
    case DuckDBTypeId.LIST:
      return (value as DuckDBListValue).items.map((item) => expectedJson(item, (type as DuckDBListType).valueType));
    case DuckDBTypeId.ARRAY:
      return (value as DuckDBArrayValue).items.map((item) => expectedJson(item, (type as DuckDBArrayType).valueType));
    case DuckDBTypeId.STRUCT: {
      const struct = type as DuckDBStructType;
      const entries = (value as DuckDBStructValue).entries;
      return Object.fromEntries(struct.entryNames.map((name, i) => [name, expectedJson(entries[name] ?? null, struct.entryTypes[i]!)]));
    }
    case DuckDBTypeId.MAP: {
      const map = type as DuckDBMapType;
      const entries = (value as DuckDBMapValue).entries;
      if (map.keyType.typeId === DuckDBTypeId.VARCHAR) {
        return Object.fromEntries(entries.map((entry) => [String(entry.key), expectedJson(entry.value, map.valueType)]));
      }
      return entries.map((entry) => ({ key: expectedJson(entry.key, map.keyType), value: expectedJson(entry.value, map.valueType) }));
    }
    case DuckDBTypeId.UNION: {
      const { tag, value: member } = value as DuckDBUnionValue;
      return expectedJson(member, (type as DuckDBUnionType).memberTypeForTag(tag));
    }
    default:
      // UUID, TIME_TZ, BIT, ENUM: their text.
      return String(value);
  }
}
