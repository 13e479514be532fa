import { DataType, IntervalUnit, makeVector, Precision, UnionMode, type Data, type Vector } from 'apache-arrow';
import { formatDateFromDays, formatDateFromMilliseconds, formatDuration, formatInterval, formatTimeOfDay, formatTimestamp, int64FromWords } from './temporal-format.js';

/**
 * One Arrow value as text for the result table: NULL as `NULL`, 64-bit integers and
 * decimals exact (read as bigint from the buffers), temporal values DuckDB-style, nested
 * values as `[1, 2]`, `{'a': 1}`, `{'k'=1}` with strings quoted inside them.
 *
 * Works on `Data` (one chunk) and a local index: apache-arrow slices a chunk's value
 * buffers to its offset, so `values[index]` is the value (booleans excepted, see below).
 */
export const NULL_TEXT = 'NULL';

/** Nested values longer than this stop growing; the table cuts cells far shorter anyway. */
const NESTED_TEXT_LIMIT = 1000;

const utf8 = new TextDecoder();

export function formatValue(data: Data, index: number): string {
  return format(data, index, false);
}

function format(data: Data, index: number, nested: boolean): string {
  const type = data.type as DataType;
  if (DataType.isNull(type)) return NULL_TEXT;
  // A union's validity is its member's; check it through the member.
  if (DataType.isUnion(type)) {
    const typeIds = data.typeIds as Int8Array;
    const childIndex = type.typeIdToChildIndex[typeIds[index]!]!;
    const memberIndex = type.mode === UnionMode.Dense ? Number((data.valueOffsets as Int32Array)[index]) : index;
    return format(data.children[childIndex]!, memberIndex, nested);
  }
  if (!data.getValid(index)) return NULL_TEXT;

  if (DataType.isInt(type)) return String((data.values as ArrayLike<number | bigint>)[index]);
  if (DataType.isFloat(type)) {
    if (type.precision === Precision.HALF) return formatFloat(Number(vectorOf(data).get(index)), false);
    return formatFloat(Number((data.values as Float32Array | Float64Array)[index]), type.precision === Precision.SINGLE);
  }
  if (DataType.isDecimal(type)) return formatDecimal(data.values as Uint32Array, data.stride, index, type.scale);
  if (DataType.isUtf8(type) || DataType.isLargeUtf8(type)) {
    const text = utf8.decode(variableWidthBytes(data, index));
    return nested ? quote(text) : text;
  }
  if (DataType.isBinary(type) || DataType.isLargeBinary(type)) return formatBytes(variableWidthBytes(data, index));
  if (DataType.isFixedSizeBinary(type)) {
    const width = type.byteWidth;
    return formatBytes((data.values as Uint8Array).subarray(index * width, (index + 1) * width));
  }
  if (DataType.isDate(type)) {
    const raw = (data.values as ArrayLike<number | bigint>)[index]!;
    return typeof raw === 'bigint' ? formatDateFromMilliseconds(raw) : formatDateFromDays(raw);
  }
  if (DataType.isTime(type)) return formatTimeOfDay(BigInt((data.values as ArrayLike<number | bigint>)[index]!), type.unit);
  if (DataType.isTimestamp(type)) return formatTimestamp(BigInt((data.values as ArrayLike<number | bigint>)[index]!), type.unit, Boolean(type.timezone));
  if (DataType.isDuration(type)) return formatDuration(BigInt((data.values as ArrayLike<number | bigint>)[index]!), type.unit);
  if (DataType.isInterval(type)) return formatIntervalValue(data, type.unit, index);
  if (DataType.isList(type) || DataType.isLargeList(type)) {
    const offsets = data.valueOffsets as ArrayLike<number | bigint>;
    const begin = Number(offsets[index]);
    return `[${joinLimited(Number(offsets[index + 1]) - begin, (i) => format(data.children[0]!, begin + i, true))}]`;
  }
  if (DataType.isFixedSizeList(type)) {
    const size = type.listSize;
    return `[${joinLimited(size, (i) => format(data.children[0]!, index * size + i, true))}]`;
  }
  if (DataType.isStruct(type)) {
    return `{${joinLimited(type.children.length, (i) => `${quote(type.children[i]!.name)}: ${format(data.children[i]!, index, true)}`)}}`;
  }
  if (DataType.isMap(type)) {
    const offsets = data.valueOffsets as Int32Array;
    const begin = offsets[index]!;
    const entries = data.children[0]!;
    return `{${joinLimited(offsets[index + 1]! - begin, (i) => `${format(entries.children[0]!, begin + i, true)}=${format(entries.children[1]!, begin + i, true)}`)}}`;
  }
  if (DataType.isDictionary(type)) {
    const key = Number((data.values as ArrayLike<number | bigint>)[index]);
    return data.dictionary ? formatVectorElement(data.dictionary, key, nested) : String(key);
  }
  // Booleans (bit-packed, buffers not sliced) and anything exotic: trust apache-arrow's getter.
  const value: unknown = vectorOf(data).get(index);
  if (value === null || value === undefined) return NULL_TEXT;
  return typeof value === 'string' && nested ? quote(value) : String(value);
}

const vectors = new WeakMap<Data, Vector>();

function vectorOf(data: Data): Vector {
  let vector = vectors.get(data);
  if (!vector) {
    vector = makeVector(data);
    vectors.set(data, vector);
  }
  return vector;
}

/** An element of a (possibly multi-chunk) vector, e.g. a dictionary's values. */
export function formatVectorElement(vector: Vector, index: number, nested = false): string {
  let rest = index;
  for (const chunk of vector.data) {
    if (rest < chunk.length) return format(chunk, rest, nested);
    rest -= chunk.length;
  }
  return NULL_TEXT;
}

function variableWidthBytes(data: Data, index: number): Uint8Array {
  const offsets = data.valueOffsets as ArrayLike<number | bigint>;
  return (data.values as Uint8Array).subarray(Number(offsets[index]), Number(offsets[index + 1]));
}

function joinLimited(count: number, element: (index: number) => string): string {
  let text = '';
  for (let i = 0; i < count; i += 1) {
    if (text.length > NESTED_TEXT_LIMIT) return `${text}, …`;
    text += (i === 0 ? '' : ', ') + element(i);
  }
  return text;
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** DuckDB's spellings of non-finite values; FLOAT shown with the digits a float holds, not a double's. */
export function formatFloat(value: number, single: boolean): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (!single) return String(value);
  for (let digits = 1; digits <= 9; digits += 1) {
    const shorter = Number(value.toPrecision(digits));
    if (Math.fround(shorter) === value) return String(shorter);
  }
  return String(value);
}

/** A 128- or 256-bit two's-complement decimal (little-endian 32-bit words) with its scale applied. */
export function formatDecimal(words: Uint32Array, stride: number, index: number, scale: number): string {
  let unscaled = 0n;
  for (let word = stride - 1; word >= 0; word -= 1) unscaled = (unscaled << 32n) | BigInt(words[index * stride + word]!);
  const bits = BigInt(stride * 32);
  if (unscaled >> (bits - 1n) === 1n) unscaled -= 1n << bits;
  if (scale <= 0) return (unscaled * 10n ** BigInt(-scale)).toString();
  const negative = unscaled < 0n;
  const digits = (negative ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** Bytes as DuckDB shows a BLOB: printable ASCII as is, everything else as `\xHH`. */
export function formatBytes(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) {
    text += byte >= 0x20 && byte < 0x7f && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return text;
}

function formatIntervalValue(data: Data, unit: IntervalUnit, index: number): string {
  const values = data.values as Int32Array;
  switch (unit) {
    case IntervalUnit.YEAR_MONTH:
      return formatInterval(values[index]!, 0, 0n);
    case IntervalUnit.DAY_TIME:
      return formatInterval(0, values[2 * index]!, BigInt(values[2 * index + 1]!) * 1_000_000n);
    default:
      return formatInterval(values[4 * index]!, values[4 * index + 1]!, int64FromWords(values[4 * index + 2]!, values[4 * index + 3]!));
  }
}
