import { Binary, Bool, Float64, Int64, Utf8, type Field } from 'apache-arrow';
import { sourceField } from '../../core/engine/sources/record-batch-builder.js';

/**
 * A SQLite column's declared type → the dataset column, by SQLite's own affinity rules
 * (https://www.sqlite.org/datatype3.html#determination_of_column_affinity), plus BOOLEAN.
 * Values that do not fit the column (SQLite lets any value into any column) become text
 * in a TEXT column and fail the read elsewhere, naming the column.
 */
export function sqliteField(name: string, declared: string): Field {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return sourceField(name, new Int64());
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return sourceField(name, new Utf8());
  if (type.includes('BLOB')) return sourceField(name, new Binary());
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return sourceField(name, new Float64());
  if (type.startsWith('BOOL')) return sourceField(name, new Bool());
  // NUMERIC affinity (NUMERIC, DECIMAL, DATE, DATETIME...): SQLite stores what it was given; text keeps it exactly.
  return sourceField(name, new Utf8());
}

/** One SQLite value converted for its column; throws naming the column when it cannot be. */
export function sqliteValue(field: Field, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (field.type.toString()) {
    case 'Int64':
      if (typeof value === 'bigint') return value;
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      break;
    case 'Float64':
      if (typeof value === 'number') return value;
      if (typeof value === 'bigint') return Number(value);
      break;
    case 'Bool':
      if (typeof value === 'number' || typeof value === 'bigint') return value !== 0 && value !== 0n;
      break;
    case 'Binary':
      if (value instanceof Uint8Array) return value;
      if (typeof value === 'string') return new TextEncoder().encode(value);
      if (typeof value === 'number' || typeof value === 'bigint') return new TextEncoder().encode(String(value));
      break;
    default:
      if (value instanceof Uint8Array) break;
      return String(value);
  }
  throw new Error(`column "${field.name}" (${field.type.toString()}) holds a value of another type: ${String(value)}`);
}
