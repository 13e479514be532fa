import { TimeUnit, Type, type DataType, type RecordBatch, type Time, type Timestamp } from 'apache-arrow';

/**
 * One row of a parameter record batch (DoPut on a prepared statement) as the positional
 * values the engine binds: numbers, bigints, strings, booleans, null. Dates, times,
 * timestamps (to their last digit) and decimals become ISO/decimal strings, which DuckDB
 * casts to the type the statement expects.
 */
export function rowParameters(batch: RecordBatch, row: number): unknown[] {
  return batch.schema.fields.map((field, index) => {
    const column = batch.getChildAt(index);
    if (column === null || !column.isValid(row)) return null;
    // Arrow JS reads timestamps and times as JS milliseconds: microseconds and nanoseconds
    // would be lost. Their stored integers are read instead.
    if (field.type.typeId === Type.Timestamp) return timestampText(rawInteger(column.data[0]!.values, row), (field.type as Timestamp).unit, (field.type as Timestamp).timezone);
    if (field.type.typeId === Type.Time) return timeText(rawInteger(column.data[0]!.values, row), (field.type as Time).unit);
    return toParameter(column.get(row), field.type);
  });
}

function rawInteger(values: ArrayLike<number | bigint>, row: number): bigint {
  return BigInt(values[row]!);
}

const PER_SECOND: Record<TimeUnit, bigint> = { [TimeUnit.SECOND]: 1n, [TimeUnit.MILLISECOND]: 1_000n, [TimeUnit.MICROSECOND]: 1_000_000n, [TimeUnit.NANOSECOND]: 1_000_000_000n };
const FRACTION_DIGITS: Record<TimeUnit, number> = { [TimeUnit.SECOND]: 0, [TimeUnit.MILLISECOND]: 3, [TimeUnit.MICROSECOND]: 6, [TimeUnit.NANOSECOND]: 9 };

/** Whole seconds and the fraction's digits of a count of `unit`s (the fraction never negative). */
function split(raw: bigint, unit: TimeUnit): { seconds: bigint; fraction: string } {
  const perSecond = PER_SECOND[unit];
  let seconds = raw / perSecond;
  let fraction = raw % perSecond;
  if (fraction < 0n) {
    fraction += perSecond;
    seconds -= 1n;
  }
  const digits = FRACTION_DIGITS[unit];
  return { seconds, fraction: digits === 0 ? '' : `.${fraction.toString().padStart(digits, '0')}` };
}

/** `2026-11-27 05:06:07.123456` (with `+00` for a zoned timestamp: Arrow stores the UTC instant). */
function timestampText(raw: bigint, unit: TimeUnit, timezone: string | null | undefined): string {
  const { seconds, fraction } = split(raw, unit);
  const clock = new Date(Number(seconds) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  return `${clock}${fraction}${timezone ? '+00' : ''}`;
}

/** `23:59:58.123456`. */
function timeText(raw: bigint, unit: TimeUnit): string {
  const { seconds, fraction } = split(raw, unit);
  const total = Number(seconds);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor(total / 60) % 60)}:${pad(total % 60)}${fraction}`;
}

function toParameter(value: unknown, type: DataType): unknown {
  switch (type.typeId) {
    case Type.Date:
      return new Date(Number(value)).toISOString().slice(0, 10);
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
