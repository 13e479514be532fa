/**
 * Type-specialised renderers of scalar Arrow columns. Each loop handles one type only,
 * reserves its worst case once per batch and writes bytes directly: no per-row strings
 * except where a double or a huge integer needs JavaScript's own number formatting.
 */
import { Type, type Data, type Float, type Int } from 'apache-arrow';
import { writeAsciiText, writeInt64Words, writeSafeInteger } from './number-text.js';
import { isNullAt, nullBitmapOf, writeNull, type ColumnRenderer, type Dialect } from './renderer.js';

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');

export function renderNullColumn(dialect: Dialect): ColumnRenderer {
  return (data, out, ends) => {
    const bytes = out.ensure(data.length * 4);
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      position = writeNull(bytes, position, dialect);
      ends[i] = position;
    }
    out.position = position;
  };
}

export function renderBool(dialect: Dialect): ColumnRenderer {
  return (data, out, ends) => {
    const bytes = out.ensure(data.length * 5);
    const bitmap = nullBitmapOf(data);
    const { offset, values } = data;
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, offset, i)) {
        position = writeNull(bytes, position, dialect);
      } else {
        const bit = offset + i;
        const word = ((values[bit >> 3]! >> (bit & 7)) & 1) === 1 ? TRUE : FALSE;
        for (let k = 0; k < word.length; k++) bytes[position++] = word[k]!;
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

/** Int8/16/32 and Uint8/16/32: values are exact doubles. */
export function renderSmallInt(dialect: Dialect): ColumnRenderer {
  return (data, out, ends) => {
    const bytes = out.ensure(data.length * 11);
    const bitmap = nullBitmapOf(data);
    const values = data.values as Int32Array;
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) position = writeNull(bytes, position, dialect);
      else position = writeSafeInteger(bytes, position, values[i]!);
      ends[i] = position;
    }
    out.position = position;
  };
}

/**
 * Int64/Uint64 (and Duration, Date64): all digits, also beyond ±2^53 (still a valid JSON
 * number; JavaScript clients parsing it with JSON.parse lose precision there).
 */
export function renderInt64(dialect: Dialect, signed: boolean): ColumnRenderer {
  return (data, out, ends) => {
    const bytes = out.ensure(data.length * 21);
    const bitmap = nullBitmapOf(data);
    const values = data.values as BigInt64Array;
    const words = new Uint32Array(values.buffer, values.byteOffset, data.length * 2);
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, dialect);
      } else {
        const high = words[i * 2 + 1]!;
        position = writeInt64Words(bytes, position, words[i * 2]!, signed ? high | 0 : high, signed);
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

/** Shortest text that reads back as the same float32 (String() would print the double). */
function float32Text(value: number): string {
  for (let precision = 1; precision < 9; precision++) {
    const candidate = Number(value.toPrecision(precision));
    if (Math.fround(candidate) === value) return String(candidate);
  }
  return String(Number(value.toPrecision(9)));
}

/** Float64/32/16: shortest round-trip text; non-finite → `null` (JSON) or `NaN`/`Infinity` (CSV). */
export function renderFloat(dialect: Dialect): ColumnRenderer {
  return (data, out, ends) => {
    const bitmap = nullBitmapOf(data);
    const values = data.values as Float64Array | Float32Array | Uint16Array;
    const precision = (data.type as Float).precision; // 0 = half, 1 = single, 2 = double
    out.ensure(data.length * 25);
    const bytes = out.bytes;
    let position = out.position;
    for (let i = 0; i < data.length; i++) {
      if (bitmap !== null && isNullAt(bitmap, data.offset, i)) {
        position = writeNull(bytes, position, dialect);
      } else {
        const value = precision === 0 ? halfToDouble(values[i]!) : values[i]!;
        if (value !== value || value === Infinity || value === -Infinity) {
          position = dialect === 'json' ? writeNull(bytes, position, dialect) : writeAsciiText(bytes, position, String(value));
        } else if (Number.isSafeInteger(value) && !Object.is(value, -0)) {
          position = writeSafeInteger(bytes, position, value);
        } else {
          position = writeAsciiText(bytes, position, precision === 1 ? float32Text(value) : String(value));
        }
      }
      ends[i] = position;
    }
    out.position = position;
  };
}

function halfToDouble(bits: number): number {
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  const sign = bits & 0x8000 ? -1 : 1;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

export function isSignedInt64(data: Data): boolean {
  return data.type.typeId === Type.Int ? (data.type as Int).isSigned : true;
}
