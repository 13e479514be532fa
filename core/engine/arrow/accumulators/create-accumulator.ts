import type { DuckDBArrayType, DuckDBDecimalType, DuckDBEnumType, DuckDBListType, DuckDBMapType, DuckDBStructType, DuckDBType, DuckDBUnionType } from '@duckdb/node-api';
import { DuckDBTypeId } from '../../duckdb-api.js';
import {
  Utf8,
  vectorFromArray,
  type DataType,
  type Decimal,
  type Dictionary,
  type FixedSizeList,
  type List,
  type Map_,
  type SparseUnion,
  type Struct,
  type Binary,
} from 'apache-arrow';
import { BooleanAccumulator } from './boolean-accumulator.js';
import type { ColumnAccumulator } from './column-accumulator.js';
import { FixedSizeListAccumulator } from './fixed-size-list-accumulator.js';
import { FixedWidthAccumulator } from './fixed-width-accumulator.js';
import { IntervalAccumulator } from './interval-accumulator.js';
import { ListAccumulator } from './list-accumulator.js';
import { NullAccumulator } from './null-accumulator.js';
import { StringAccumulator } from './string-accumulator.js';
import { StructAccumulator } from './struct-accumulator.js';
import { BigNumAccumulator, BitAccumulator, TimeTzAccumulator, UuidAccumulator, VariantAccumulator } from './text-rendered-accumulators.js';
import { UnionAccumulator } from './union-accumulator.js';
import { WideningDecimalAccumulator } from './widening-decimal-accumulator.js';

/**
 * The accumulator converting a DuckDB column of `duckdbType` into `arrowType`, which must
 * be the type `arrowTypeFor(duckdbType)` produced for the schema: batches have to carry
 * the schema's own type objects (a Dictionary's id ties its batches to its field).
 * `maxValueBytes` bounds every string and blob, nested ones included (none by default: user
 * queries pass runtime.query.max_value_size).
 */
export function createAccumulator(duckdbType: DuckDBType, arrowType: DataType, maxValueBytes = Number.POSITIVE_INFINITY): ColumnAccumulator {
  const child = (type: DuckDBType, childArrowType: DataType) => createAccumulator(type, childArrowType, maxValueBytes);
  const width = fixedWidthOf(duckdbType.typeId);
  if (width !== null) return new FixedWidthAccumulator(arrowType, width);
  switch (duckdbType.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return new BooleanAccumulator();
    case DuckDBTypeId.UHUGEINT:
      return new WideningDecimalAccumulator(arrowType as Decimal, 16);
    case DuckDBTypeId.DECIMAL: {
      const { width } = duckdbType as DuckDBDecimalType;
      if (width <= 4) return new WideningDecimalAccumulator(arrowType as Decimal, 2);
      if (width <= 9) return new WideningDecimalAccumulator(arrowType as Decimal, 4);
      if (width <= 18) return new WideningDecimalAccumulator(arrowType as Decimal, 8);
      return new FixedWidthAccumulator(arrowType, 16);
    }
    case DuckDBTypeId.VARCHAR:
    case DuckDBTypeId.BLOB:
    case DuckDBTypeId.GEOMETRY:
      return new StringAccumulator(arrowType as Utf8 | Binary, maxValueBytes);
    case DuckDBTypeId.INTERVAL:
      return new IntervalAccumulator();
    case DuckDBTypeId.UUID:
      return new UuidAccumulator();
    case DuckDBTypeId.TIME_TZ:
      return new TimeTzAccumulator();
    case DuckDBTypeId.BIT:
      return new BitAccumulator();
    case DuckDBTypeId.BIGNUM:
      return new BigNumAccumulator();
    case DuckDBTypeId.VARIANT:
      return new VariantAccumulator(duckdbType);
    case DuckDBTypeId.SQLNULL:
      return new NullAccumulator();
    case DuckDBTypeId.ENUM: {
      const dictionaryType = arrowType as Dictionary;
      const members = vectorFromArray((duckdbType as DuckDBEnumType).values, new Utf8());
      return new FixedWidthAccumulator(dictionaryType, dictionaryType.indices.bitWidth / 8, members);
    }
    case DuckDBTypeId.LIST: {
      const listType = arrowType as List;
      return new ListAccumulator(listType, child((duckdbType as DuckDBListType).valueType, listType.valueType));
    }
    case DuckDBTypeId.MAP: {
      const mapType = arrowType as Map_;
      const entriesType = mapType.childType as Struct;
      const { keyType, valueType } = duckdbType as DuckDBMapType;
      const entries = new StructAccumulator(entriesType, [
        child(keyType, entriesType.children[0]!.type),
        child(valueType, entriesType.children[1]!.type),
      ]);
      return new ListAccumulator(mapType, entries);
    }
    case DuckDBTypeId.ARRAY: {
      const listType = arrowType as FixedSizeList;
      return new FixedSizeListAccumulator(listType, child((duckdbType as DuckDBArrayType).valueType, listType.valueType));
    }
    case DuckDBTypeId.STRUCT: {
      const structType = arrowType as Struct;
      const { entryTypes } = duckdbType as DuckDBStructType;
      return new StructAccumulator(structType, entryTypes.map((type, i) => child(type, structType.children[i]!.type)));
    }
    case DuckDBTypeId.UNION: {
      const unionType = arrowType as SparseUnion;
      const { memberTypes } = duckdbType as DuckDBUnionType;
      return new UnionAccumulator(unionType, memberTypes.map((type, i) => child(type, unionType.children[i]!.type)));
    }
    default:
      throw new Error(`no Arrow conversion for DuckDB type ${String(duckdbType)}`);
  }
}

/**
 * Bytes a value of the DuckDB types whose memory is already Arrow's layout (little-endian
 * integers, floats, DATE as int32 days, TIME and TIMESTAMP* as int64 in their unit, HUGEINT as
 * Decimal128 bits); null for any other type.
 */
export function fixedWidthOf(typeId: DuckDBTypeId): number | null {
  switch (typeId) {
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.UTINYINT:
      return 1;
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.USMALLINT:
      return 2;
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DATE:
      return 4;
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.DOUBLE:
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_NS:
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_NS:
    case DuckDBTypeId.TIMESTAMP_TZ:
      return 8;
    case DuckDBTypeId.HUGEINT:
      return 16;
    default:
      return null;
  }
}
