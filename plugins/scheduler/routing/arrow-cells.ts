import { Field, makeData, RecordBatch, Schema, Struct, Type, type Data, type DataType } from 'apache-arrow';

/**
 * Single values of the Arrow columns a cluster merge combines in JS (arrow-merge.ts): read,
 * compared as DuckDB compares them, and copied into new columns byte for byte. Only the
 * layouts listed here; anything else makes the merge decline (the engine merges instead).
 */

/** A value as the merge sees it: integers of 64 bits and decimals as bigint (a decimal unscaled). */
export type Cell = number | bigint | boolean | string | null;

/** One row of one column of a leg's answer. */
export interface CellReference {
  readonly data: Data;
  readonly index: number;
}

const TEXT = new TextDecoder();
const INT_128_MIN = -(1n << 127n);
const INT_128_MAX = (1n << 127n) - 1n;

/** The layouts read here: fixed-width numbers, dates and timestamps, decimals, booleans, UTF-8. */
export function isReadable(type: DataType): boolean {
  switch (type.typeId) {
    case Type.Int:
    case Type.Float:
    case Type.Date:
    case Type.Timestamp:
    case Type.Decimal:
    case Type.Bool:
    case Type.Utf8:
      return type.typeId !== Type.Decimal || (type as unknown as { bitWidth: number }).bitWidth === 128;
    default:
      return false;
  }
}

/** The value at `index` (relative to the data's own offset), or null. */
export function cellAt(data: Data, index: number): Cell {
  if (data.nullCount > 0 && !data.getValid(index)) return null;
  switch (data.typeId) {
    case Type.Bool:
      return isTrue(data, index);
    case Type.Utf8:
      return TEXT.decode(utf8Bytes(data, index));
    case Type.Decimal:
      return decimalAt(data.values as Uint32Array, index);
    default:
      // Int8..Int64, Uint8..Uint64, DateDay, Timestamp: one typed-array element per value.
      return (data.values as ArrayLike<number | bigint>)[index]!;
  }
}

/*
 * A sliced Data keeps its offset but has its value and offset buffers cut to the slice, except
 * a boolean's bits (apache-arrow's _sliceBuffers): only bits are indexed with the offset.
 */
function isTrue(data: Data, index: number): boolean {
  const at = data.offset + index;
  return ((data.values as Uint8Array)[at >> 3]! & (1 << (at & 7))) !== 0;
}

function utf8Bytes(data: Data, index: number): Uint8Array {
  const offsets = data.valueOffsets as Int32Array;
  return (data.values as Uint8Array).subarray(offsets[index]!, offsets[index + 1]!);
}

function decimalAt(words: Uint32Array, at: number): bigint {
  const base = at * 4;
  const unsigned = (BigInt(words[base + 3]!) << 96n) | (BigInt(words[base + 2]!) << 64n) | (BigInt(words[base + 1]!) << 32n) | BigInt(words[base]!);
  return BigInt.asIntN(128, unsigned);
}

/**
 * DuckDB's order of two non-null values of one column: numbers and booleans by value, text by
 * code point (the order of its UTF-8 bytes, which UTF-16 code units alone get wrong for
 * characters beyond U+FFFF against U+E000..U+FFFF).
 */
export function compareCells(left: Cell, right: Cell): number {
  if (typeof left === 'string' && typeof right === 'string') return compareText(left, right);
  return left! < right! ? -1 : left! > right! ? 1 : 0;
}

function compareText(left: string, right: string): number {
  if (left === right) return 0;
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) {
    const a = left.charCodeAt(index);
    const b = right.charCodeAt(index);
    if (a !== b) return codePointRank(a) - codePointRank(b);
  }
  return left.length - right.length;
}

/** Surrogates (U+D800..U+DFFF, halves of code points above U+FFFF) rank above U+E000..U+FFFF. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/** How an ORDER BY term sorts: resolved against the engine's defaults (arrow-merge-plan.ts). */
export interface SortTerm {
  readonly descending: boolean;
  readonly nullsFirst: boolean;
}

/** Two rows' sort keys compared term by term, as ORDER BY does. */
export function compareKeys(left: readonly Cell[], right: readonly Cell[], order: readonly SortTerm[]): number {
  for (const [index, term] of order.entries()) {
    const [a, b] = [left[index]!, right[index]!];
    if (a === null || b === null) {
      if (a === b) continue;
      return (a === null) === term.nullsFirst ? -1 : 1;
    }
    const compared = compareCells(a, b);
    if (compared !== 0) return term.descending ? -compared : compared;
  }
  return 0;
}

/** A new column of `type` holding the referenced values in order, copied unchanged. */
export function takeCells(type: DataType, references: readonly CellReference[]): Data {
  const length = references.length;
  const validity = new Uint8Array((length + 7) >> 3);
  let nullCount = 0;
  references.forEach((reference, row) => {
    if (reference.data.nullCount > 0 && !reference.data.getValid(reference.index)) nullCount++;
    else validity[row >> 3]! |= 1 << (row & 7);
  });
  const nullBitmap = nullCount > 0 ? validity : new Uint8Array(0);
  if (type.typeId === Type.Bool) {
    const bits = new Uint8Array((length + 7) >> 3);
    references.forEach((reference, row) => {
      if (isTrue(reference.data, reference.index)) bits[row >> 3]! |= 1 << (row & 7);
    });
    return makeData({ type, length, nullCount, nullBitmap, data: bits } as never);
  }
  if (type.typeId === Type.Utf8) {
    const pieces = references.map((reference) => utf8Bytes(reference.data, reference.index));
    const valueOffsets = new Int32Array(length + 1);
    pieces.forEach((piece, row) => (valueOffsets[row + 1] = valueOffsets[row]! + piece.length));
    const bytes = new Uint8Array(valueOffsets[length]!);
    pieces.forEach((piece, row) => bytes.set(piece, valueOffsets[row]!));
    return makeData({ type, length, nullCount, nullBitmap, valueOffsets, data: bytes } as never);
  }
  // Fixed width: `stride` typed-array elements per value (4 words for a 128-bit decimal).
  const first = references[0]?.data;
  const stride = first?.stride ?? 1;
  const Values = (first?.values.constructor ?? (type as unknown as { ArrayType: new (length: number) => ArrayLike<unknown> }).ArrayType) as new (length: number) => { set(values: ArrayLike<unknown>, offset: number): void };
  const values = new Values(length * stride);
  references.forEach((reference, row) => {
    const at = reference.index * stride;
    values.set((reference.data.values as unknown as { subarray(begin: number, end: number): ArrayLike<unknown> }).subarray(at, at + stride), row * stride);
  });
  return makeData({ type, length, nullCount, nullBitmap, data: values } as never);
}

/** The merged answer: each column named as the single node names it, typed as the leg column it came from. */
export function answerBatch(columns: ReadonlyArray<{ name: string; field: Field; data: Data }>, legSchema: Schema, rows: number): RecordBatch {
  const fields = columns.map(({ name, field }) => new Field(name, field.type, field.nullable, field.metadata));
  return new RecordBatch(new Schema(fields, legSchema.metadata), makeData({ type: new Struct(fields), length: rows, nullCount: 0, children: columns.map((column) => column.data) }));
}

/** A 64-bit integer column of `type` from bigint values (null for NULL); undefined when one does not fit. */
export function int64Column(type: DataType, values: ReadonlyArray<bigint | null>): Data | undefined {
  const words = new BigInt64Array(values.length);
  for (const [row, value] of values.entries()) {
    if (value === null) continue;
    if (value !== BigInt.asIntN(64, value)) return undefined;
    words[row] = value;
  }
  return makeData({ type, length: values.length, ...validityOf(values), data: words } as never);
}

/**
 * A Decimal128 column of `type` from unscaled bigint values; undefined when one exceeds
 * `limit` in magnitude (the engine would report the overflow: the caller lets it).
 */
export function decimalColumn(type: DataType, values: ReadonlyArray<bigint | null>, limit: bigint): Data | undefined {
  const words = new Uint32Array(values.length * 4);
  for (const [row, value] of values.entries()) {
    if (value === null) continue;
    if (value > limit || value < -limit || value < INT_128_MIN || value > INT_128_MAX) return undefined;
    let unsigned = BigInt.asUintN(128, value);
    for (let word = 0; word < 4; word++) {
      words[row * 4 + word] = Number(unsigned & 0xffffffffn);
      unsigned >>= 32n;
    }
  }
  return makeData({ type, length: values.length, ...validityOf(values), data: words } as never);
}

function validityOf(values: ReadonlyArray<unknown>): { nullCount: number; nullBitmap: Uint8Array } {
  const nullCount = values.reduce<number>((count, value) => count + (value === null ? 1 : 0), 0);
  if (nullCount === 0) return { nullCount, nullBitmap: new Uint8Array(0) };
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((value, row) => {
    if (value !== null) bitmap[row >> 3]! |= 1 << (row & 7);
  });
  return { nullCount, nullBitmap: bitmap };
}
