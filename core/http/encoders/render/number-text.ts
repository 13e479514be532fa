/**
 * Integers and decimals written as ASCII digits straight into a byte buffer. Each writer
 * takes the buffer and position and returns the new position; callers reserve room first
 * (at most 21 bytes for any 64-bit integer, 42 for a 128-bit decimal).
 */

/** "00".."99" as byte pairs, so digits are produced two at a time. */
export const DIGIT_PAIRS: Uint8Array = (() => {
  const pairs = new Uint8Array(200);
  for (let i = 0; i < 100; i++) {
    pairs[i * 2] = 48 + Math.floor(i / 10);
    pairs[i * 2 + 1] = 48 + (i % 10);
  }
  return pairs;
})();

const TWO_TO_32 = 4294967296;

function digitCount(value: number): number {
  if (value < 100000) {
    if (value < 100) return value < 10 ? 1 : 2;
    return value < 1000 ? 3 : value < 10000 ? 4 : 5;
  }
  if (value < 10000000) return value < 1000000 ? 6 : 7;
  return value < 100000000 ? 8 : value < 1000000000 ? 9 : 10;
}

/** A non-negative integer below 2^32. */
function writeUint32(bytes: Uint8Array, position: number, value: number): number {
  const end = position + digitCount(value);
  let at = end;
  while (value >= 100) {
    const quotient = (value / 100) >>> 0;
    const pair = (value - quotient * 100) * 2;
    bytes[--at] = DIGIT_PAIRS[pair + 1]!;
    bytes[--at] = DIGIT_PAIRS[pair]!;
    value = quotient;
  }
  if (value >= 10) {
    bytes[--at] = DIGIT_PAIRS[value * 2 + 1]!;
    bytes[--at] = DIGIT_PAIRS[value * 2]!;
  } else {
    bytes[--at] = 48 + value;
  }
  return end;
}

/** Exactly `width` digits of a non-negative integer below 10^width and 2^53 (zero-padded). */
export function writePaddedDigits(bytes: Uint8Array, position: number, value: number, width: number): number {
  if (width > 9) {
    // The pair loop below uses 32-bit arithmetic: split off the last nine digits first.
    const high = Math.floor(value / 1e9);
    position = writePaddedDigits(bytes, position, high, width - 9);
    return writePaddedDigits(bytes, position, value - high * 1e9, 9);
  }
  let at = position + width;
  let remaining = width;
  while (remaining >= 2) {
    const quotient = (value / 100) >>> 0;
    const pair = (value - quotient * 100) * 2;
    bytes[--at] = DIGIT_PAIRS[pair + 1]!;
    bytes[--at] = DIGIT_PAIRS[pair]!;
    value = quotient;
    remaining -= 2;
  }
  if (remaining === 1) bytes[--at] = 48 + value;
  return position + width;
}

/** Any integer whose magnitude is below 2^53 (exactly representable as a double). */
export function writeSafeInteger(bytes: Uint8Array, position: number, value: number): number {
  if (value < 0) {
    bytes[position++] = 45;
    value = -value;
  }
  if (value < TWO_TO_32) return writeUint32(bytes, position, value);
  const high = Math.floor(value / 1e9);
  position = writeUint32(bytes, position, high);
  return writePaddedDigits(bytes, position, value - high * 1e9, 9);
}

/** Writes an ASCII string (digits from BigInt#toString, String(number), ...). */
export function writeAsciiText(bytes: Uint8Array, position: number, text: string): number {
  for (let i = 0; i < text.length; i++) bytes[position++] = text.charCodeAt(i);
  return position;
}

/**
 * A 64-bit integer given as two 32-bit words (low unsigned, high signed or unsigned).
 * Values within ±2^53 take the double path; the rest go through BigInt.
 */
export function writeInt64Words(bytes: Uint8Array, position: number, low: number, high: number, signed: boolean): number {
  if (signed ? high >= -2097152 && high < 2097152 : high < 2097152) {
    return writeSafeInteger(bytes, position, high * TWO_TO_32 + low);
  }
  const big = (BigInt(high) << 32n) | BigInt(low);
  return writeAsciiText(bytes, position, (signed ? BigInt.asIntN(64, big) : BigInt.asUintN(64, big)).toString());
}

/** Digits of an unscaled integer with `scale` digits after the point (scale may be ≤ 0). */
export function writeScaledDigits(bytes: Uint8Array, position: number, digits: string, negative: boolean, scale: number): number {
  if (negative) bytes[position++] = 45;
  if (scale <= 0) {
    position = writeAsciiText(bytes, position, digits);
    if (digits !== '0') for (let i = 0; i < -scale; i++) bytes[position++] = 48;
    return position;
  }
  const padded = digits.length <= scale ? '0'.repeat(scale - digits.length + 1) + digits : digits;
  const point = padded.length - scale;
  for (let i = 0; i < point; i++) bytes[position++] = padded.charCodeAt(i);
  bytes[position++] = 46;
  for (let i = point; i < padded.length; i++) bytes[position++] = padded.charCodeAt(i);
  return position;
}

const POWERS_OF_TEN: number[] = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * A decimal given as little-endian 32-bit words of a two's-complement integer (Arrow's
 * Decimal128/256 layout) and its scale. Values within ±2^53 avoid BigInt entirely.
 */
export function writeDecimalWords(bytes: Uint8Array, position: number, words: Uint32Array, at: number, wordCount: number, scale: number): number {
  const low = words[at]!;
  const high = words[at + 1]! | 0;
  let small = high >= -2097152 && high < 2097152;
  const extension = high < 0 ? 0xffffffff : 0;
  for (let w = 2; small && w < wordCount; w++) small = words[at + w] === extension;
  if (small && scale >= 0 && scale < 16) {
    let value = high * TWO_TO_32 + low;
    if (value < 0) {
      bytes[position++] = 45;
      value = -value;
    }
    if (scale === 0) return writeSafeInteger(bytes, position, value);
    const unit = POWERS_OF_TEN[scale]!;
    const integer = Math.floor(value / unit);
    position = writeSafeInteger(bytes, position, integer);
    bytes[position++] = 46;
    return writePaddedDigits(bytes, position, value - integer * unit, scale);
  }
  let big = 0n;
  for (let w = wordCount - 1; w >= 0; w--) big = (big << 32n) | BigInt(words[at + w]!);
  big = BigInt.asIntN(wordCount * 32, big);
  const negative = big < 0n;
  return writeScaledDigits(bytes, position, (negative ? -big : big).toString(), negative, scale);
}
