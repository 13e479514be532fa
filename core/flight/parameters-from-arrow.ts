import { Type, type DataType, type RecordBatch } from 'apache-arrow';

/**
 * One row of a parameter record batch (DoPut on a prepared statement) as the positional
 * values the engine binds: numbers, bigints, strings, booleans, null. Dates, times,
 * timestamps and decimals become ISO/decimal strings, which DuckDB casts to the type the
 * statement expects.
 */
export function rowParameters(batch: RecordBatch, row: number): unknown[] {
  return batch.schema.fields.map((field, index) => toParameter(batch.getChildAt(index)?.get(row), field.type));
}

function toParameter(value: unknown, type: DataType): unknown {
  if (value === null || value === undefined) return null;
  switch (type.typeId) {
    case Type.Date:
      return new Date(Number(value)).toISOString().slice(0, 10);
    case Type.Timestamp: {
      const iso = new Date(Number(value)).toISOString();
      return iso.slice(0, 23).replace('T', ' ');
    }
    case Type.Decimal:
      return decimalText(value, (type as DataType & { scale: number }).scale);
    default:
      // Numbers, bigints, booleans and strings bind as they are; other values (binary,
      // nested) reach the engine, which refuses them with PARAMETERS_INVALID.
      return value;
  }
}

/** Arrow's decimal values print as their unscaled integer; put the point back. */
function decimalText(value: unknown, scale: number): string {
  const digits = String(value);
  if (scale <= 0) return digits;
  const negative = digits.startsWith('-');
  const magnitude = (negative ? digits.slice(1) : digits).padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${magnitude.slice(0, -scale)}.${magnitude.slice(-scale)}`;
}
