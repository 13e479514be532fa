import type { DuckDBListType, DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { DuckDBBlobValue, DuckDBDateValue, DuckDBDecimalValue, DuckDBListValue, DuckDBTimestampTZValue, DuckDBTimestampValue, DuckDBTypeId, DuckDBUUIDValue } from './duckdb-api.js';
import { Type, TimeUnit, type Data, type Vector } from 'apache-arrow';
import { QuarryError } from '../errors/quarry-error.js';

/**
 * Converts one Arrow column slice into the values a DuckDB data chunk takes for a target
 * column type. Used by ingest (Flight DoPut); covers the scalar types data arrives in.
 */
export function duckdbValuesFor(vector: Vector, start: number, count: number, target: DuckDBType, column: string): DuckDBValue[] {
  const values: DuckDBValue[] = new Array(count);
  const data = vector.data[0] as Data | undefined;
  const typeId = vector.type.typeId;
  for (let offset = 0; offset < count; offset++) {
    const row = start + offset;
    if (!vector.isValid(row)) {
      values[offset] = null;
      continue;
    }
    values[offset] = convert(vector, data, row, typeId, target, column);
  }
  return values;
}

const microsPerUnit: Record<number, bigint> = { [TimeUnit.SECOND]: 1_000_000n, [TimeUnit.MILLISECOND]: 1_000n, [TimeUnit.MICROSECOND]: 1n };

function rawInteger(data: Data | undefined, row: number): bigint {
  const values = data!.values as BigInt64Array | Int32Array;
  // Arrow's slices cut the values buffer itself; `offset` applies to the null bitmap only.
  const value = values[row]!;
  return typeof value === 'bigint' ? value : BigInt(value);
}

function rawDecimal(data: Data, row: number): bigint {
  const words = data.values as Uint32Array;
  const base = row * 4;
  let value = 0n;
  for (let word = 3; word >= 0; word--) value = (value << 32n) | BigInt(words[base + word]!);
  return BigInt.asIntN(128, value);
}

function convert(vector: Vector, data: Data | undefined, row: number, typeId: Type, target: DuckDBType, column: string): DuckDBValue {
  const fail = () =>
    new QuarryError('INGEST_SCHEMA_MISMATCH', `column "${column}": Arrow ${String(vector.type)} cannot be written into a ${target.toString()} column`);
  switch (target.typeId) {
    case DuckDBTypeId.BOOLEAN:
      if (typeId !== Type.Bool) throw fail();
      return vector.get(row) as boolean;
    case DuckDBTypeId.TINYINT: case DuckDBTypeId.SMALLINT: case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT: case DuckDBTypeId.USMALLINT: case DuckDBTypeId.UINTEGER:
      if (typeId !== Type.Int) throw fail();
      return Number(vector.get(row));
    case DuckDBTypeId.BIGINT: case DuckDBTypeId.UBIGINT: case DuckDBTypeId.HUGEINT:
      // The engine's own Arrow form of HUGEINT: Decimal128(38, 0).
      if (target.typeId === DuckDBTypeId.HUGEINT && typeId === Type.Decimal && (vector.type as { scale: number }).scale === 0) return rawDecimal(data!, row);
      if (typeId !== Type.Int) throw fail();
      return BigInt(vector.get(row) as number | bigint);
    case DuckDBTypeId.FLOAT: case DuckDBTypeId.DOUBLE:
      if (typeId !== Type.Float && typeId !== Type.Int) throw fail();
      return Number(vector.get(row));
    case DuckDBTypeId.VARCHAR:
      if (typeId !== Type.Utf8 && typeId !== Type.LargeUtf8) throw fail();
      return vector.get(row) as string;
    case DuckDBTypeId.BLOB:
      if (typeId !== Type.Binary && typeId !== Type.LargeBinary) throw fail();
      return new DuckDBBlobValue(vector.get(row) as Uint8Array);
    case DuckDBTypeId.DATE:
      if (typeId !== Type.Date) throw fail();
      return new DuckDBDateValue(Math.floor(Number(vector.get(row)) / 86_400_000));
    case DuckDBTypeId.TIMESTAMP: case DuckDBTypeId.TIMESTAMP_TZ: {
      if (typeId !== Type.Timestamp) throw fail();
      const unit = (vector.type as { unit: TimeUnit }).unit;
      const raw = rawInteger(data, row);
      const micros = unit === TimeUnit.NANOSECOND ? raw / 1000n : raw * microsPerUnit[unit]!;
      return target.typeId === DuckDBTypeId.TIMESTAMP ? new DuckDBTimestampValue(micros) : new DuckDBTimestampTZValue(micros);
    }
    case DuckDBTypeId.DECIMAL: {
      const { width, scale } = target as unknown as { width: number; scale: number };
      if (typeId === Type.Decimal) {
        const sourceScale = (vector.type as { scale: number }).scale;
        let value = rawDecimal(data!, row);
        if (sourceScale < scale) value *= 10n ** BigInt(scale - sourceScale);
        if (sourceScale > scale) value /= 10n ** BigInt(sourceScale - scale);
        return new DuckDBDecimalValue(value, width, scale);
      }
      if (typeId === Type.Int) return new DuckDBDecimalValue(BigInt(vector.get(row) as number | bigint) * 10n ** BigInt(scale), width, scale);
      // Connectors hand exact decimals over as text (e.g. PostgreSQL numeric) to keep every digit.
      if (typeId === Type.Utf8) return new DuckDBDecimalValue(scaledDecimal(vector.get(row) as string, scale, column), width, scale);
      throw fail();
    }
    case DuckDBTypeId.UUID:
      if (typeId !== Type.Utf8) throw fail();
      return DuckDBUUIDValue.fromUint128(BigInt(`0x${(vector.get(row) as string).replaceAll('-', '')}`));
    case DuckDBTypeId.LIST: {
      if (typeId !== Type.List) throw fail();
      const items = vector.get(row) as Vector;
      return new DuckDBListValue(duckdbValuesFor(items, 0, items.length, (target as DuckDBListType).valueType, column));
    }
    default:
      throw new QuarryError('INGEST_SCHEMA_MISMATCH', `column "${column}": writing into ${target.toString()} columns is not supported; supported: boolean, integers, floating point, decimal, varchar, blob, date, timestamp, uuid, list`);
  }
}

/** `-12.5` at scale 3 → -12500n; more fractional digits than the scale are an error, not rounding. */
function scaledDecimal(text: string, scale: number, column: string): bigint {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  const fraction = match?.[3] ?? '';
  if (!match || (match[2] === '' && fraction === '') || fraction.replace(/0+$/, '').length > scale) {
    throw new QuarryError('INGEST_SCHEMA_MISMATCH', `column "${column}": "${text}" is not a decimal with at most ${scale} fractional digits`);
  }
  const digits = BigInt(`${match[2] || '0'}${fraction.padEnd(scale, '0').slice(0, scale)}`);
  return match[1] === '-' ? -digits : digits;
}
