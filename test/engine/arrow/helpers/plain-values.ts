/**
 * Test helpers: turn a DuckDB value (node-api's own reader) and an Arrow value (read from
 * our batches) into the same plain form, so any query can be compared cell by cell.
 * Numbers become their exact text; temporal values their raw count in the storage unit.
 */
import {
  DuckDBTypeId,
  JsonDuckDBValueConverter,
  type DuckDBArrayValue,
  type DuckDBArrayType,
  type DuckDBBlobValue,
  type DuckDBDateValue,
  type DuckDBDecimalValue,
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
import { Type, type Data, type Decimal, type Dictionary, type FixedSizeList, type Struct, type SparseUnion } from 'apache-arrow';

export type Plain = null | string | boolean | Plain[] | { [key: string]: Plain };

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

export function duckValueToPlain(value: DuckDBValue, type: DuckDBType): Plain {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return value as boolean;
    case DuckDBTypeId.DECIMAL:
      return String((value as DuckDBDecimalValue).value);
    case DuckDBTypeId.DATE:
      return String((value as DuckDBDateValue).days);
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIME:
      return String((value as { micros: bigint }).micros);
    case DuckDBTypeId.TIMESTAMP_S:
      return String((value as { seconds: bigint }).seconds);
    case DuckDBTypeId.TIMESTAMP_MS:
      return String((value as { millis: bigint }).millis);
    case DuckDBTypeId.TIMESTAMP_NS:
    case DuckDBTypeId.TIME_NS:
      return String((value as { nanos: bigint }).nanos);
    case DuckDBTypeId.INTERVAL: {
      const interval = value as DuckDBIntervalValue;
      return `${interval.months}/${interval.days}/${interval.micros * 1000n}`;
    }
    case DuckDBTypeId.BLOB:
    case DuckDBTypeId.GEOMETRY:
      return hex((value as DuckDBBlobValue).bytes);
    case DuckDBTypeId.VARIANT:
      return JSON.stringify(JsonDuckDBValueConverter(value, type, JsonDuckDBValueConverter));
    case DuckDBTypeId.LIST:
      return (value as DuckDBListValue).items.map((item) => duckValueToPlain(item, (type as DuckDBListType).valueType));
    case DuckDBTypeId.ARRAY:
      return (value as DuckDBArrayValue).items.map((item) => duckValueToPlain(item, (type as DuckDBArrayType).valueType));
    case DuckDBTypeId.STRUCT: {
      const struct = type as DuckDBStructType;
      const entries = (value as DuckDBStructValue).entries;
      return Object.fromEntries(struct.entryNames.map((name, i) => [name, duckValueToPlain(entries[name] ?? null, struct.entryTypes[i]!)]));
    }
    case DuckDBTypeId.MAP: {
      const map = type as DuckDBMapType;
      return (value as DuckDBMapValue).entries.map((entry) => ({
        key: duckValueToPlain(entry.key, map.keyType),
        value: duckValueToPlain(entry.value, map.valueType),
      }));
    }
    case DuckDBTypeId.UNION: {
      const union = type as DuckDBUnionType;
      const { tag, value: member } = value as DuckDBUnionValue;
      return { tag, value: duckValueToPlain(member, union.memberTypeForTag(tag)) };
    }
    default:
      return String(value);
  }
}

/** Two's-complement (or unsigned) integer from little-endian 32-bit words. */
export function wordsToBigInt(words: Uint32Array, signed: boolean): bigint {
  let result = 0n;
  for (let i = words.length - 1; i >= 0; i--) result = (result << 32n) | BigInt(words[i]!);
  return signed ? BigInt.asIntN(words.length * 32, result) : result;
}

export function arrowValueToPlain(data: Data, index: number): Plain {
  const type = data.type;
  if (type.typeId === Type.Union) return unionValue(data, index);
  if (!data.getValid(index)) return null;
  const values = data.values as ArrayLike<number | bigint> & { subarray(begin: number, end: number): Uint32Array };
  switch (type.typeId) {
    case Type.Null:
      return null;
    case Type.Bool: {
      const bit = data.offset + index;
      return ((data.values[bit >> 3]! >> (bit & 7)) & 1) === 1;
    }
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Time:
    case Type.Timestamp:
      return String(values[index]);
    case Type.Decimal: {
      const words = (type as Decimal).bitWidth / 32;
      return String(wordsToBigInt(values.subarray(index * words, (index + 1) * words), (type as Decimal).precision <= 38));
    }
    case Type.Interval: {
      const words = data.values as Int32Array;
      const nanos = wordsToBigInt(new Uint32Array(words.buffer, words.byteOffset + (index * 4 + 2) * 4, 2), true);
      return `${words[index * 4]}/${words[index * 4 + 1]}/${nanos}`;
    }
    case Type.Utf8:
    case Type.Binary: {
      const offsets = data.valueOffsets as Int32Array;
      const bytes = (data.values as Uint8Array).subarray(offsets[index]!, offsets[index + 1]!);
      return type.typeId === Type.Utf8 ? Buffer.from(bytes).toString('utf8') : hex(bytes);
    }
    case Type.Dictionary: {
      const dictionary = (data as Data<Dictionary>).dictionary!;
      return String(dictionary.get(Number(values[index])));
    }
    case Type.List:
    case Type.Map: {
      const offsets = data.valueOffsets as Int32Array;
      const child = data.children[0]!;
      const items: Plain[] = [];
      for (let i = offsets[index]!; i < offsets[index + 1]!; i++) items.push(arrowValueToPlain(child, i));
      return items;
    }
    case Type.FixedSizeList: {
      const size = (type as FixedSizeList).listSize;
      const items: Plain[] = [];
      for (let i = index * size; i < (index + 1) * size; i++) items.push(arrowValueToPlain(data.children[0]!, i));
      return items;
    }
    case Type.Struct:
      return Object.fromEntries((type as Struct).children.map((field, i) => [field.name, arrowValueToPlain(data.children[i]!, index)]));
    default:
      throw new Error(`no plain form for Arrow type ${String(type)}`);
  }
}

function unionValue(data: Data, index: number): Plain {
  const type = data.type as SparseUnion;
  const childIndex = type.typeIdToChildIndex[data.typeIds[index]!]!;
  const value = arrowValueToPlain(data.children[childIndex]!, index);
  // A NULL union is member 0's NULL: there is no tag to report.
  if (value === null && childIndex === 0) return null;
  return { tag: type.children[childIndex]!.name, value };
}
