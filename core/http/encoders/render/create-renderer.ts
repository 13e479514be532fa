import { DataType, Field, makeVector, Type, type Dictionary, type Int, type Map_, type Struct, type Time, type Union } from 'apache-arrow';
import { ARROW_EXTENSION_NAME_KEY, DUCKDB_TYPE_KEY, JSON_EXTENSION_NAME } from '../../../engine/arrow/field-metadata.js';
import { csvQuoted, renderDictionary, renderList, renderMap, renderStruct, renderUnion } from './nested-renderers.js';
import { writeNull, type ColumnRenderer, type Dialect } from './renderer.js';
import { renderBool, renderFloat, renderInt64, renderNullColumn, renderSmallInt } from './scalar-renderers.js';
import { renderDate, renderInterval, renderTime, renderTimestamp } from './temporal-renderers.js';
import { renderBinary, renderDecimal, renderUtf8 } from './text-renderers.js';

/**
 * True for Utf8 fields whose text is already JSON and is written unquoted: JSON documents
 * (DuckDB JSON and VARIANT, tagged `arrow.json`) and DuckDB BIGNUM digits (a number).
 */
export function isRawJsonField(field: Field): boolean {
  return field.metadata.get(ARROW_EXTENSION_NAME_KEY) === JSON_EXTENSION_NAME || field.metadata.get(DUCKDB_TYPE_KEY) === 'BIGNUM';
}

/**
 * The renderer of one column in `dialect`. Nested values are always JSON text: in CSV
 * the whole list/struct/map is one quoted field. See docs/json-encoding.md.
 */
export function createRenderer(field: Field, dialect: Dialect): ColumnRenderer {
  const type = field.type as DataType;
  switch (type.typeId) {
    case Type.Null: return renderNullColumn(dialect);
    case Type.Bool: return renderBool(dialect);
    case Type.Int: return (type as Int).bitWidth === 64 ? renderInt64(dialect, (type as Int).isSigned) : renderSmallInt(dialect);
    case Type.Float: return renderFloat(dialect);
    case Type.Decimal: return renderDecimal(dialect);
    case Type.Date: return renderDate(dialect);
    case Type.Time: return (type as Time).bitWidth === 64 || (type as Time).bitWidth === 32 ? renderTime(dialect) : fallback(dialect);
    case Type.Timestamp: return renderTimestamp(dialect);
    case Type.Duration: return renderInt64(dialect, true);
    case Type.Interval: return dialect === 'json' ? renderInterval() : csvQuoted(renderInterval());
    case Type.Utf8:
    case Type.LargeUtf8: return renderUtf8(dialect, isRawJsonField(field));
    case Type.Binary:
    case Type.LargeBinary:
    case Type.FixedSizeBinary: return renderBinary(dialect);
    case Type.Dictionary: return renderDictionary(createRenderer(new Field(field.name, (type as Dictionary).dictionary, true, field.metadata), dialect), dialect);
    case Type.Union: return renderUnion((type as Union).children.map((member) => createRenderer(member, dialect)));
    case Type.List:
    case Type.LargeList:
    case Type.FixedSizeList:
    case Type.Struct:
    case Type.Map: {
      const json = nestedJsonRenderer(type);
      return dialect === 'json' ? json : csvQuoted(json);
    }
    default: return fallback(dialect);
  }
}

function nestedJsonRenderer(type: DataType): ColumnRenderer {
  switch (type.typeId) {
    case Type.Struct: {
      const fields = (type as Struct).children;
      return renderStruct(fields.map((field) => field.name), fields.map((field) => createRenderer(field, 'json')));
    }
    case Type.Map: {
      const [key, value] = ((type as Map_).childType as Struct).children as [Field, Field];
      // Object keys must be JSON strings: Utf8 keys qualify unless their text is raw JSON.
      const stringKeys = (DataType.isUtf8(key.type) || DataType.isLargeUtf8(key.type)) && !isRawJsonField(key);
      return renderMap(createRenderer(key, 'json'), createRenderer(value, 'json'), stringKeys);
    }
    default:
      return renderList(createRenderer(type.children[0]!, 'json'));
  }
}

/**
 * Types no engine path produces (views, run-end encoded, ...): apache-arrow's own getter
 * and JSON.stringify, slow but correct, so an unexpected type never fails a response.
 */
function fallback(dialect: Dialect): ColumnRenderer {
  return (data, out, ends) => {
    const vector = makeVector(data);
    for (let i = 0; i < data.length; i++) {
      const value: unknown = vector.get(i);
      if (value === null || value === undefined) {
        out.position = writeNull(out.ensure(4), out.position, dialect);
      } else {
        const text = JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner)) ?? 'null';
        if (dialect === 'json') out.writeUtf8(text);
        else {
          const bytes = Buffer.from(typeof value === 'string' ? value : text, 'utf8');
          out.writeBytes(bytes);
        }
      }
      ends[i] = out.position;
    }
  };
}
