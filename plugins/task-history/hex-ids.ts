import { randomFillSync } from 'node:crypto';

/**
 * Trace and span ids as 32-bit words, so a row's ids wait as numbers (and reach the engine as
 * two UBIGINTs and one) instead of as 48 characters of text: the engine turns them back into
 * lowercase hex when the rows are moved into `runtime.task_history`. Ids in any other form
 * (a caller's own trace id, upper case) are kept as text; these functions say so by
 * returning false.
 */

/** Each char code's value as a lowercase hex digit, or -1 (codes above 127: -1 too). */
const NIBBLES = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 16; digit++) NIBBLES[digit.toString(16).charCodeAt(0)] = digit;

/** `count` (≤ 8) hex digits of `text` from `from`, or -1 when one is not a lowercase hex digit. */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let index = from; index < from + count; index++) {
    const code = text.charCodeAt(index);
    const digit = code < 128 ? NIBBLES[code]! : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * A 128-bit trace id, 32 hex digits (or a UUID's 36 characters when `dashedUuid`: its dashes
 * are dropped) into `high` and `low` as the little-endian words of two unsigned 64-bit
 * integers at `at` (words `2 * at`, `2 * at + 1`).
 */
export function writeTraceWords(id: string, high: Uint32Array, low: Uint32Array, at: number, dashedUuid: boolean): boolean {
  let first: number, second: number, third: number, fourth: number;
  if (id.length === 32) {
    first = digits(id, 0, 8);
    second = digits(id, 8, 8);
    third = digits(id, 16, 8);
    fourth = digits(id, 24, 8);
  } else if (dashedUuid && id.length === 36 && id.charCodeAt(8) === 45 && id.charCodeAt(13) === 45 && id.charCodeAt(18) === 45 && id.charCodeAt(23) === 45) {
    first = digits(id, 0, 8);
    second = halves(digits(id, 9, 4), digits(id, 14, 4));
    third = halves(digits(id, 19, 4), digits(id, 24, 4));
    fourth = digits(id, 28, 8);
  } else {
    return false;
  }
  if (first < 0 || second < 0 || third < 0 || fourth < 0) return false;
  high[2 * at] = second;
  high[2 * at + 1] = first;
  low[2 * at] = fourth;
  low[2 * at + 1] = third;
  return true;
}

/** Two 16-bit halves as one word, or -1 when either is. */
function halves(high: number, low: number): number {
  return high < 0 || low < 0 ? -1 : high * 0x10000 + low;
}

/** A 64-bit span id of 16 hex digits into `target` as an unsigned 64-bit integer's words at `at`. */
export function writeSpanWords(id: string, target: Uint32Array, at: number): boolean {
  if (id.length !== 16) return false;
  const high = digits(id, 0, 8);
  const low = digits(id, 8, 8);
  if (high < 0 || low < 0) return false;
  target[2 * at] = low;
  target[2 * at + 1] = high;
  return true;
}

/** Random bytes drawn 4 KiB at a time: one `randomBytes` call per id was a visible cost on the cache-hit path. */
const pool = Buffer.alloc(4096);
const poolWords = new Uint32Array(pool.buffer, pool.byteOffset, pool.length / 4);
let poolOffset = pool.length;

/** Where `bytes` (8 or 16: word-aligned) fresh random bytes start in the pool. */
function take(bytes: number): number {
  if (poolOffset + bytes > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += bytes;
  return at;
}

/** A span id: 8 random bytes as 16 hex digits (W3C trace-context size). */
export function newSpanId(): string {
  const at = take(8);
  return pool.toString('hex', at, at + 8);
}

/** A trace id: 16 random bytes as 32 hex digits. */
export function newTraceId(): string {
  const at = take(16);
  return pool.toString('hex', at, at + 16);
}

/** A new random span id straight into `target`'s words at `at` (no string is made for it). */
export function writeRandomSpanWords(target: Uint32Array, at: number): void {
  const word = take(8) / 4;
  target[2 * at] = poolWords[word]!;
  target[2 * at + 1] = poolWords[word + 1]!;
}
