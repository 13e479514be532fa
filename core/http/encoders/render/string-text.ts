/**
 * UTF-8 bytes into JSON strings and CSV fields, byte to byte. Arrow Utf8 data is already
 * UTF-8, so valid text is copied as is and only `"`, `\` and control characters change.
 * Invalid UTF-8 (possible in data from elsewhere) is replaced by U+FFFD per WHATWG rules
 * so the output stays valid text; callers detect it once per column with `isUtf8`.
 */
import { isUtf8 } from 'node:buffer';

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;

/** For each byte < 0x80: 0 = copy, else the escape sequence's bytes. */
const JSON_ESCAPES: (Uint8Array | null)[] = Array.from({ length: 128 }, (_, byte) => {
  if (byte === QUOTE) return Buffer.from('\\"');
  if (byte === BACKSLASH) return Buffer.from('\\\\');
  if (byte >= 0x20) return null;
  const short: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };
  return Buffer.from(short[byte] ?? `\\u${byte.toString(16).padStart(4, '0')}`);
});

/** 1 where a byte needs escaping in JSON (`"`, `\`, < 0x20). */
const NEEDS_JSON_ESCAPE: Uint8Array = Uint8Array.from({ length: 256 }, (_, byte) => (byte < 128 && JSON_ESCAPES[byte] !== null ? 1 : 0));

/** Worst case of a JSON string for `byteLength` bytes of text (`\u00XX` per byte + quotes). */
export function maxJsonStringBytes(byteLength: number): number {
  return byteLength * 6 + 2;
}

/** `"…"` with JSON escapes, from valid UTF-8 `source[start, end)`. */
export function writeJsonString(target: Uint8Array, position: number, source: Uint8Array, start: number, end: number): number {
  target[position++] = QUOTE;
  for (let i = start; i < end; i++) {
    const byte = source[i]!;
    if (NEEDS_JSON_ESCAPE[byte] === 0) {
      target[position++] = byte;
    } else {
      const escape = JSON_ESCAPES[byte]!;
      for (let k = 0; k < escape.length; k++) target[position++] = escape[k]!;
    }
  }
  target[position++] = QUOTE;
  return position;
}

/** Worst case of a CSV field for `byteLength` bytes (every quote doubled + enclosing quotes). */
export function maxCsvFieldBytes(byteLength: number): number {
  return byteLength * 2 + 2;
}

/**
 * An RFC 4180 field: quoted when it holds a comma, quote, CR or LF, or is empty (so an
 * empty string differs from NULL, which is an empty unquoted field).
 */
export function writeCsvField(target: Uint8Array, position: number, source: Uint8Array, start: number, end: number): number {
  let quote = start === end;
  for (let i = start; i < end && !quote; i++) {
    const byte = source[i]!;
    quote = byte === COMMA || byte === QUOTE || byte === 10 || byte === 13;
  }
  if (!quote) {
    for (let i = start; i < end; i++) target[position++] = source[i]!;
    return position;
  }
  target[position++] = QUOTE;
  for (let i = start; i < end; i++) {
    const byte = source[i]!;
    if (byte === QUOTE) target[position++] = QUOTE;
    target[position++] = byte;
  }
  target[position++] = QUOTE;
  return position;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** True when every byte of `source[start, end)` is valid UTF-8. */
export function isValidUtf8(source: Uint8Array, start: number, end: number): boolean {
  return isUtf8(source.subarray(start, end));
}

/** The bytes with invalid sequences replaced by U+FFFD (EF BF BD). */
export function replaceInvalidUtf8(source: Uint8Array, start: number, end: number): Buffer {
  return Buffer.from(decoder.decode(source.subarray(start, end)), 'utf8');
}

const BASE64_ALPHABET = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');

export function maxBase64Bytes(byteLength: number): number {
  return Math.ceil(byteLength / 3) * 4;
}

/** Standard base64 with padding (RFC 4648 §4). */
export function writeBase64(target: Uint8Array, position: number, source: Uint8Array, start: number, end: number): number {
  let i = start;
  for (; i + 2 < end; i += 3) {
    const triple = (source[i]! << 16) | (source[i + 1]! << 8) | source[i + 2]!;
    target[position++] = BASE64_ALPHABET[triple >> 18]!;
    target[position++] = BASE64_ALPHABET[(triple >> 12) & 63]!;
    target[position++] = BASE64_ALPHABET[(triple >> 6) & 63]!;
    target[position++] = BASE64_ALPHABET[triple & 63]!;
  }
  const rest = end - i;
  if (rest > 0) {
    const triple = (source[i]! << 16) | (rest === 2 ? source[i + 1]! << 8 : 0);
    target[position++] = BASE64_ALPHABET[triple >> 18]!;
    target[position++] = BASE64_ALPHABET[(triple >> 12) & 63]!;
    target[position++] = rest === 2 ? BASE64_ALPHABET[(triple >> 6) & 63]! : 61;
    target[position++] = 61;
  }
  return position;
}
