import { DataType, Type, TimeUnit, type Field, type Schema } from 'apache-arrow';
import { DUCKDB_TYPE_KEY } from '../arrow/field-metadata.js';
import { QuarryError } from '../../errors/quarry-error.js';
import { quoteIdentifier } from '../sql-text.js';

/**
 * The DuckDB column type for an Arrow field a connector returns. A field may name its DuckDB
 * type in metadata (`duckdb:type`, e.g. `UUID`, `JSON`, `DECIMAL(12,2)`) when the Arrow type
 * alone is less precise (a UUID or an exact decimal travels as Utf8).
 */
export function duckdbColumnType(field: Field, dataset: string): string {
  const declared = field.metadata.get(DUCKDB_TYPE_KEY);
  if (declared !== undefined) {
    if (!/^[A-Za-z][A-Za-z0-9_ ]*(\(\d+(,\s*\d+)?\))?(\[\])*$/.test(declared)) {
      throw new QuarryError('DATASET_LOAD_FAILED', `dataset ${dataset}: column "${field.name}" declares DuckDB type "${declared}", which is not a type name`);
    }
    return declared;
  }
  return typeFor(field.type, () => new QuarryError('DATASET_LOAD_FAILED', `dataset ${dataset}: column "${field.name}" has Arrow type ${String(field.type)}, which fetched datasets do not support`));
}

/** `"a" INTEGER, "b" VARCHAR` for a CREATE TABLE. */
export function columnDefinitions(schema: Schema, dataset: string): string {
  return schema.fields.map((field) => `${quoteIdentifier(field.name)} ${duckdbColumnType(field, dataset)}`).join(', ');
}

function typeFor(type: DataType, unsupported: () => Error): string {
  switch (type.typeId) {
    case Type.Bool: return 'BOOLEAN';
    case Type.Int: {
      const { bitWidth, isSigned } = type as unknown as { bitWidth: number; isSigned: boolean };
      const names: Record<number, string> = { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INTEGER', 64: 'BIGINT' };
      return `${isSigned ? '' : 'U'}${names[bitWidth]!}`;
    }
    case Type.Float: return (type as unknown as { precision: number }).precision === 1 ? 'FLOAT' : 'DOUBLE';
    case Type.Decimal: {
      const { precision, scale } = type as unknown as { precision: number; scale: number };
      return `DECIMAL(${precision}, ${scale})`;
    }
    case Type.Utf8: case Type.LargeUtf8: return 'VARCHAR';
    case Type.Binary: case Type.LargeBinary: return 'BLOB';
    case Type.Date: return 'DATE';
    case Type.Timestamp: {
      const { timezone } = type as unknown as { unit: TimeUnit; timezone: string | null };
      return timezone ? 'TIMESTAMP WITH TIME ZONE' : 'TIMESTAMP';
    }
    case Type.List: return `${typeFor((type as unknown as { valueType: DataType }).valueType, unsupported)}[]`;
    case Type.Map: {
      // Maps of text only: the engine's append copies those as they are and converts no other map.
      const { keyType, valueType } = type as unknown as { keyType: DataType; valueType: DataType };
      if (keyType.typeId !== Type.Utf8 || valueType.typeId !== Type.Utf8) throw unsupported();
      return 'MAP(VARCHAR, VARCHAR)';
    }
    default: throw unsupported();
  }
}
