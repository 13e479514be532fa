/**
 * DuckDB logical type → Arrow data type, for every type a DuckDB result can carry.
 *
 * The mapping keeps values exact and readable by apache-arrow's JS reader (and any
 * Arrow implementation); where Arrow has no exact counterpart the choice is written next
 * to the case and in docs/json-encoding.md. Every field also carries the DuckDB type name
 * in its metadata (`duckdb:type`) so clients can tell e.g. a UUID from a VARCHAR.
 */
import type { DuckDBType } from '@duckdb/node-api';
import { LRUCache } from 'lru-cache';
import { DuckDBArrayType, DuckDBDecimalType, DuckDBEnumType, DuckDBListType, DuckDBMapType, DuckDBStructType, DuckDBTypeId, DuckDBUnionType } from '../duckdb-api.js';
import {
  Binary,
  Bool,
  DataType,
  DateDay,
  Decimal,
  Dictionary,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  IntervalMonthDayNano,
  List,
  Map_,
  Null,
  Schema,
  SparseUnion,
  Struct,
  TimeMicrosecond,
  TimeNanosecond,
  Timestamp,
  TimeUnit,
  Uint16,
  Uint32,
  Uint64,
  Uint8,
  Utf8,
} from 'apache-arrow';

import { ARROW_EXTENSION_NAME_KEY, DUCKDB_TYPE_KEY, JSON_EXTENSION_NAME, WKB_EXTENSION_NAME } from './field-metadata.js';

export { ARROW_EXTENSION_NAME_KEY, DUCKDB_TYPE_KEY, JSON_EXTENSION_NAME, WKB_EXTENSION_NAME };

/** Name of the child field of List and FixedSizeList, as pyarrow and arrow-rs name it. */
export const LIST_ITEM_NAME = 'item';

/**
 * The Arrow type a DuckDB column of `type` becomes.
 *
 * Decisions where Arrow has no exact counterpart:
 * - HUGEINT → Decimal128(38, 0): DuckDB's own Arrow export does the same; the int128 bits
 *   are copied unchanged, so values of 39 digits are exact even though they exceed the
 *   declared precision.
 * - UHUGEINT → Decimal256(39, 0): an unsigned 128-bit value does not fit a signed int128.
 * - DECIMAL(p, s) of any width → Decimal128(p, s): DuckDB stores int16/32/64/128 by width;
 *   Arrow has one 128-bit layout, so narrower values are sign-extended.
 * - TIME_TZ → Utf8 (`12:34:56.789+05:30`): Arrow's Time has no offset and normalising to
 *   UTC would lose the offset the user stored.
 * - UUID → Utf8, canonical lowercase 8-4-4-4-12 text: readable by every client and encoder.
 * - ENUM → Dictionary<Uint8|Uint16|Uint32, Utf8> with the enum's members as dictionary;
 *   the index width is DuckDB's internal one, so indices are copied without conversion.
 * - UNION → SparseUnion: DuckDB stores a union as a tag plus one full-length column per
 *   member, which is exactly Arrow's sparse layout.
 * - BIT → Utf8 of '0'/'1' characters; BIGNUM (VARINT) → Utf8 of decimal digits.
 * - GEOMETRY → Binary (WKB, DuckDB's storage form), tagged `geoarrow.wkb`.
 * - VARIANT → Utf8 holding the value as JSON text; it and JSON (a VARCHAR alias) are tagged
 *   `arrow.json`, so the JSON encoder embeds them as JSON rather than as strings.
 * - SQLNULL → Null.
 */
export function arrowTypeFor(type: DuckDBType): DataType {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN: return new Bool();
    case DuckDBTypeId.TINYINT: return new Int8();
    case DuckDBTypeId.SMALLINT: return new Int16();
    case DuckDBTypeId.INTEGER: return new Int32();
    case DuckDBTypeId.BIGINT: return new Int64();
    case DuckDBTypeId.UTINYINT: return new Uint8();
    case DuckDBTypeId.USMALLINT: return new Uint16();
    case DuckDBTypeId.UINTEGER: return new Uint32();
    case DuckDBTypeId.UBIGINT: return new Uint64();
    case DuckDBTypeId.HUGEINT: return new Decimal(0, 38, 128);
    case DuckDBTypeId.UHUGEINT: return new Decimal(0, 39, 256);
    case DuckDBTypeId.FLOAT: return new Float32();
    case DuckDBTypeId.DOUBLE: return new Float64();
    case DuckDBTypeId.DECIMAL: {
      const decimal = type as DuckDBDecimalType;
      return new Decimal(decimal.scale, decimal.width, 128);
    }
    case DuckDBTypeId.VARCHAR: return new Utf8();
    case DuckDBTypeId.BLOB: return new Binary();
    case DuckDBTypeId.GEOMETRY: return new Binary();
    case DuckDBTypeId.DATE: return new DateDay();
    case DuckDBTypeId.TIME: return new TimeMicrosecond();
    case DuckDBTypeId.TIME_NS: return new TimeNanosecond();
    case DuckDBTypeId.TIME_TZ: return new Utf8();
    case DuckDBTypeId.TIMESTAMP_S: return new Timestamp(TimeUnit.SECOND);
    case DuckDBTypeId.TIMESTAMP_MS: return new Timestamp(TimeUnit.MILLISECOND);
    case DuckDBTypeId.TIMESTAMP: return new Timestamp(TimeUnit.MICROSECOND);
    case DuckDBTypeId.TIMESTAMP_NS: return new Timestamp(TimeUnit.NANOSECOND);
    case DuckDBTypeId.TIMESTAMP_TZ: return new Timestamp(TimeUnit.MICROSECOND, 'UTC');
    case DuckDBTypeId.INTERVAL: return new IntervalMonthDayNano();
    case DuckDBTypeId.UUID: return new Utf8();
    case DuckDBTypeId.BIT: return new Utf8();
    case DuckDBTypeId.BIGNUM: return new Utf8();
    case DuckDBTypeId.VARIANT: return new Utf8();
    case DuckDBTypeId.SQLNULL: return new Null();
    case DuckDBTypeId.ENUM: {
      const enumType = type as DuckDBEnumType;
      return new Dictionary(new Utf8(), enumIndexType(enumType.internalTypeId), null, false);
    }
    case DuckDBTypeId.LIST:
      return new List(arrowFieldFor(LIST_ITEM_NAME, (type as DuckDBListType).valueType));
    case DuckDBTypeId.ARRAY: {
      const arrayType = type as DuckDBArrayType;
      return new FixedSizeList(arrayType.length, arrowFieldFor(LIST_ITEM_NAME, arrayType.valueType));
    }
    case DuckDBTypeId.STRUCT: {
      const struct = type as DuckDBStructType;
      return new Struct(struct.entryNames.map((name, i) => arrowFieldFor(name, struct.entryTypes[i]!)));
    }
    case DuckDBTypeId.MAP: {
      const map = type as DuckDBMapType;
      // Arrow requires map keys to be non-null; DuckDB refuses NULL map keys too.
      const entries = new Struct([arrowFieldFor('key', map.keyType, false), arrowFieldFor('value', map.valueType)]);
      return new Map_(new Field('entries', entries, false), false);
    }
    case DuckDBTypeId.UNION: {
      const union = type as DuckDBUnionType;
      const members = union.memberTags.map((tag, i) => arrowFieldFor(tag, union.memberTypes[i]!));
      return new SparseUnion(members.map((_, i) => i), members);
    }
    default:
      throw new Error(`DuckDB type ${String(type)} (type id ${type.typeId}) cannot appear in a query result`);
  }
}

/** Arrow's index type for an enum stored by DuckDB as UTINYINT, USMALLINT or UINTEGER. */
function enumIndexType(internalTypeId: DuckDBTypeId): Uint8 | Uint16 | Uint32 {
  switch (internalTypeId) {
    case DuckDBTypeId.UTINYINT: return new Uint8();
    case DuckDBTypeId.USMALLINT: return new Uint16();
    case DuckDBTypeId.UINTEGER: return new Uint32();
    default: throw new Error(`unexpected ENUM storage type id ${internalTypeId}`);
  }
}

/** The Arrow field for a column (or nested member) `name` of DuckDB type `type`. */
export function arrowFieldFor(name: string, type: DuckDBType, nullable = true): Field {
  const metadata = new Map<string, string>([[DUCKDB_TYPE_KEY, duckdbTypeLabel(type)]]);
  if ((type.typeId === DuckDBTypeId.VARCHAR && type.alias === 'JSON') || type.typeId === DuckDBTypeId.VARIANT) {
    metadata.set(ARROW_EXTENSION_NAME_KEY, JSON_EXTENSION_NAME);
  } else if (type.typeId === DuckDBTypeId.GEOMETRY) {
    metadata.set(ARROW_EXTENSION_NAME_KEY, WKB_EXTENSION_NAME);
  }
  return new Field(name, arrowTypeFor(type), nullable, metadata);
}

/**
 * A short label of the DuckDB type: nested types by their kind only, because the full
 * text of a wide STRUCT (or an ENUM of a million members) has no place in every field.
 */
function duckdbTypeLabel(type: DuckDBType): string {
  if (type.alias) return type.alias;
  if (type.typeId === DuckDBTypeId.DECIMAL) {
    const decimal = type as DuckDBDecimalType;
    return `DECIMAL(${decimal.width},${decimal.scale})`;
  }
  return DuckDBTypeId[type.typeId] ?? String(type.typeId);
}

/**
 * The Arrow schema of a result with these column names and DuckDB types: one Schema object
 * for all results with the same columns. Schemas are never modified once made, and what is
 * kept per schema object — the encoded Flight schema, pooled answer writers (~15 KiB each for
 * ten columns) — is then made once for every statement with those columns, not once per
 * statement text: an application that sends each query with new numbers in it made a schema
 * per query, and every cached result pinned its own writer.
 */
export function arrowSchemaForColumns(names: readonly string[], types: readonly DuckDBType[]): Schema {
  if (names.length !== types.length) {
    throw new Error(`column names (${names.length}) and types (${types.length}) differ in count`);
  }
  const key = columnsKey(names, types);
  let schema = key === undefined ? undefined : sharedSchemas.get(key);
  if (schema === undefined) {
    schema = new Schema(names.map((name, i) => arrowFieldFor(name, types[i]!)));
    if (key !== undefined) sharedSchemas.set(key, schema);
  }
  return schema;
}

/** Schemas shared by columns, the most recently used first. */
const sharedSchemas = new LRUCache<string, Schema>({ max: 1024 });
/** Columns described by more text than this (wide STRUCTs, large ENUMs) get a schema of their own. */
const MAX_COLUMNS_KEY_LENGTH = 8 * 1024;

/** Names, types (their full text: DECIMAL(18,2), STRUCT members, ENUM values) and aliases (JSON), or undefined when too long. */
function columnsKey(names: readonly string[], types: readonly DuckDBType[]): string | undefined {
  let key = '';
  for (let i = 0; i < names.length; i++) {
    const type = types[i]!;
    key += `${names[i]}\u0000${String(type)}\u0000${type.alias ?? ''}\u0001`;
    if (key.length > MAX_COLUMNS_KEY_LENGTH) return undefined;
  }
  return key;
}
