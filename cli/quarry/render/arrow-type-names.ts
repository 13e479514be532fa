import { DataType, DateUnit, Precision, TimeUnit, type Field } from 'apache-arrow';
import { DUCKDB_TYPE_KEY } from '../../../core/engine/arrow/field-metadata.js';

/**
 * SQL-flavoured, lower-case names of Arrow column types for the table's type row
 * (`bigint`, `varchar`, `decimal(12,2)`, `list<integer>`), close to what DuckDB users know.
 */
export function arrowTypeName(type: DataType): string {
  if (DataType.isNull(type)) return 'null';
  if (DataType.isBool(type)) return 'boolean';
  if (DataType.isInt(type)) return integerName(type.bitWidth, type.isSigned);
  if (DataType.isFloat(type)) return type.precision === Precision.HALF ? 'float16' : type.precision === Precision.SINGLE ? 'float' : 'double';
  if (DataType.isDecimal(type)) return `decimal(${type.precision},${type.scale})`;
  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type) || DataType.isUtf8View(type)) return 'varchar';
  if (DataType.isBinary(type) || DataType.isLargeBinary(type) || DataType.isBinaryView(type)) return 'blob';
  if (DataType.isFixedSizeBinary(type)) return `blob(${type.byteWidth})`;
  if (DataType.isDate(type)) return type.unit === DateUnit.DAY ? 'date' : 'date_ms';
  if (DataType.isTime(type)) return type.unit === TimeUnit.NANOSECOND ? 'time_ns' : 'time';
  if (DataType.isTimestamp(type)) return type.timezone ? 'timestamptz' : timestampName(type.unit);
  if (DataType.isInterval(type)) return 'interval';
  if (DataType.isDuration(type)) return 'duration';
  if (DataType.isList(type) || DataType.isLargeList(type)) return `list<${childTypeName(type.children[0])}>`;
  if (DataType.isFixedSizeList(type)) return `array<${childTypeName(type.children[0])}, ${type.listSize}>`;
  if (DataType.isStruct(type)) return `struct<${type.children.map((field) => `${field.name}: ${columnTypeName(field)}`).join(', ')}>`;
  if (DataType.isMap(type)) {
    const [key, value] = type.children[0]?.type.children ?? [];
    return `map<${childTypeName(key)}, ${childTypeName(value)}>`;
  }
  if (DataType.isUnion(type)) return `union<${type.children.map((field) => `${field.name}: ${columnTypeName(field)}`).join(', ')}>`;
  if (DataType.isDictionary(type)) return arrowTypeName(type.dictionary);
  return String(type).toLowerCase();
}

function integerName(bitWidth: number, signed: boolean): string {
  const base = bitWidth === 8 ? 'tinyint' : bitWidth === 16 ? 'smallint' : bitWidth === 32 ? 'integer' : 'bigint';
  return signed ? base : `u${base}`;
}

function timestampName(unit: TimeUnit): string {
  switch (unit) {
    case TimeUnit.SECOND: return 'timestamp_s';
    case TimeUnit.MILLISECOND: return 'timestamp_ms';
    case TimeUnit.NANOSECOND: return 'timestamp_ns';
    default: return 'timestamp';
  }
}

function childTypeName(field: Field | undefined): string {
  return field ? columnTypeName(field) : '?';
}

/** Field metadata key quarryd sets to the DuckDB type a column had. */

/**
 * DuckDB types that travel as a stand-in Arrow type (UUID as varchar, HUGEINT as
 * decimal(38,0), ...): when quarryd's field metadata names one, show that name instead.
 */
const standIns: Record<string, { name: string; matches: (type: DataType) => boolean }> = {
  UUID: { name: 'uuid', matches: (type) => DataType.isUtf8(type) },
  JSON: { name: 'json', matches: (type) => DataType.isUtf8(type) },
  VARIANT: { name: 'variant', matches: (type) => DataType.isUtf8(type) },
  TIME_TZ: { name: 'timetz', matches: (type) => DataType.isUtf8(type) },
  BIT: { name: 'bit', matches: (type) => DataType.isUtf8(type) },
  BIGNUM: { name: 'bignum', matches: (type) => DataType.isUtf8(type) },
  HUGEINT: { name: 'hugeint', matches: (type) => DataType.isDecimal(type) },
  UHUGEINT: { name: 'uhugeint', matches: (type) => DataType.isDecimal(type) },
  GEOMETRY: { name: 'geometry', matches: (type) => DataType.isBinary(type) },
  ENUM: { name: 'enum', matches: (type) => DataType.isDictionary(type) },
};

/** The type name of a column, using quarryd's DuckDB type metadata where it is more precise. */
export function columnTypeName(field: Field): string {
  const duckdbType = field.metadata.get(DUCKDB_TYPE_KEY);
  const standIn = duckdbType ? standIns[duckdbType.toUpperCase()] : undefined;
  if (standIn?.matches(field.type)) return standIn.name;
  return arrowTypeName(field.type);
}

/** Columns shown right-aligned in tables: numbers. */
export function isNumericType(type: DataType): boolean {
  return DataType.isInt(type) || DataType.isFloat(type) || DataType.isDecimal(type);
}
