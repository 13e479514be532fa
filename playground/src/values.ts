/**
 * Arrow values as the page shows and exports them. apache-arrow hands back engine values in its
 * own forms (bigint, epoch milliseconds, unscaled decimals, Uint8Array, Vector, StructRow); each
 * column gets one formatter chosen from its type, not a test per value.
 */
import { DataType, type Field, type Type } from 'apache-arrow';

export type CellFormatter = (value: unknown) => string;

/** How a column is shown: its text, whether it is numeric (right aligned), its type label. */
export interface ColumnView {
  readonly name: string;
  readonly typeLabel: string;
  readonly numeric: boolean;
  readonly temporal: boolean;
  readonly format: CellFormatter;
  /** The value as a JSON export writes it (numbers stay numbers when they fit a double). */
  readonly json: (value: unknown) => unknown;
}

function hex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes.subarray(0, 64)) text += byte.toString(16).padStart(2, '0');
  return bytes.length > 64 ? `\\x${text}… (${bytes.length} bytes)` : `\\x${text}`;
}

/** An unscaled decimal (apache-arrow gives the integer's digits) with its scale put back. */
function decimalText(unscaled: string, scale: number): string {
  if (scale <= 0) return unscaled;
  const negative = unscaled.startsWith('-');
  const digits = (negative ? unscaled.slice(1) : unscaled).padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

const jsonSafe = (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value);

function nestedText(value: unknown): string {
  const plain = typeof (value as { toJSON?: () => unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value;
  return JSON.stringify(plain, jsonSafe);
}

function timestampFormatter(unit: number | undefined): CellFormatter {
  // apache-arrow converts timestamps and dates to epoch milliseconds.
  return (value) => {
    const date = new Date(Number(value));
    if (Number.isNaN(date.getTime())) return String(value);
    const text = date.toISOString().replace('T', ' ').replace('Z', '');
    return unit === undefined ? text : text.replace(/\.000$/, '');
  };
}

export function columnView(field: Field): ColumnView {
  const type: DataType = field.type;
  const label = String(type);
  const base = { name: field.name, typeLabel: label };
  if (DataType.isInt(type) || DataType.isFloat(type)) {
    return { ...base, numeric: true, temporal: false, format: (value) => String(value), json: (value) => (typeof value === 'bigint' && BigInt(Number(value)) !== value ? value.toString() : Number(value)) };
  }
  if (DataType.isDecimal(type)) {
    const { precision, scale } = type as DataType<Type.Decimal> & { precision: number; scale: number };
    const format = (value: unknown) => decimalText(String(value), scale);
    // As SQL writes it, not apache-arrow's `Decimal[10e+2]`.
    return { ...base, typeLabel: `Decimal(${precision}, ${scale})`, numeric: true, temporal: false, format, json: (value) => Number(format(value)) };
  }
  if (DataType.isTimestamp(type)) {
    const format = timestampFormatter(1);
    return { ...base, numeric: false, temporal: true, format, json: format };
  }
  if (DataType.isDate(type)) {
    const format = (value: unknown) => new Date(Number(value)).toISOString().slice(0, 10);
    return { ...base, numeric: false, temporal: true, format, json: format };
  }
  if (DataType.isBinary(type) || DataType.isFixedSizeBinary(type) || DataType.isLargeBinary(type)) {
    const format = (value: unknown) => hex(value as Uint8Array);
    return { ...base, numeric: false, temporal: false, format, json: format };
  }
  if (DataType.isBool(type) || DataType.isUtf8(type) || DataType.isLargeUtf8(type)) {
    return { ...base, numeric: false, temporal: false, format: (value) => String(value), json: (value) => value };
  }
  if (DataType.isInterval(type)) {
    const format = (value: unknown) => {
      const [months, days, nanoseconds] = Array.from(value as ArrayLike<number>);
      return `${months ?? 0} months ${days ?? 0} days ${nanoseconds ?? 0} ns`;
    };
    return { ...base, numeric: false, temporal: false, format, json: format };
  }
  // Lists, structs, maps, unions: their JSON, with 64-bit integers as text.
  return { ...base, numeric: false, temporal: false, format: nestedText, json: (value) => JSON.parse(nestedText(value)) as unknown };
}

/** A CSV field: quoted when it holds a separator, quote or line break (RFC 4180). */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
