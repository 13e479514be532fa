/**
 * LSB-first bitmap helpers shared by validity and boolean packing. DuckDB's validity masks
 * and Arrow's null bitmaps share this layout, so ranges copy without per-row decisions.
 */

/** Number of set bits of every byte value. */
const BITS_SET: Uint8Array = (() => {
  const table = new Uint8Array(256);
  for (let i = 1; i < 256; i++) table[i] = (i & 1) + table[i >> 1]!;
  return table;
})();

/** Number of set bits in `[start, start + count)` of `bits`. */
export function countSetBits(bits: Uint8Array, start: number, count: number): number {
  let set = 0;
  let bit = start;
  const end = start + count;
  while (bit < end && (bit & 7) !== 0) {
    set += (bits[bit >> 3]! >> (bit & 7)) & 1;
    bit++;
  }
  const wholeBytesEnd = end - ((end - bit) & 7);
  for (let byte = bit >> 3; bit < wholeBytesEnd; bit += 8, byte++) set += BITS_SET[bits[byte]!]!;
  while (bit < end) {
    set += (bits[bit >> 3]! >> (bit & 7)) & 1;
    bit++;
  }
  return set;
}

/**
 * Copies `count` bits from `source` at `sourceStart` into `target` at `targetStart`.
 * Bits of `target` from `targetStart` on must be zero (targets are only ever appended to).
 */
export function copyBits(source: Uint8Array, sourceStart: number, target: Uint8Array, targetStart: number, count: number): void {
  let i = 0;
  if ((sourceStart & 7) === 0 && (targetStart & 7) === 0) {
    // The common case: whole chunks appended at chunk-aligned positions.
    const wholeBytes = count >> 3;
    const from = sourceStart >> 3;
    target.set(new Uint8Array(source.buffer, source.byteOffset + from, wholeBytes), targetStart >> 3);
    i = wholeBytes << 3;
  } else if ((targetStart & 7) === 0) {
    const shift = sourceStart & 7;
    const from = sourceStart >> 3;
    const to = targetStart >> 3;
    const wholeBytes = (count >> 3) - 1;
    for (let b = 0; b < wholeBytes; b++) {
      target[to + b] = ((source[from + b]! >> shift) | (source[from + b + 1]! << (8 - shift))) & 0xff;
    }
    i = Math.max(0, wholeBytes) << 3;
  }
  for (; i < count; i++) {
    const s = sourceStart + i;
    if ((source[s >> 3]! >> (s & 7)) & 1) {
      const t = targetStart + i;
      target[t >> 3]! |= 1 << (t & 7);
    }
  }
}

/** Sets bits `[start, start + count)` of `target`. */
export function setBitRange(target: Uint8Array, start: number, count: number): void {
  let bit = start;
  const end = start + count;
  while (bit < end && (bit & 7) !== 0) {
    target[bit >> 3]! |= 1 << (bit & 7);
    bit++;
  }
  const wholeBytes = (end - bit) >> 3;
  if (wholeBytes > 0) {
    target.fill(0xff, bit >> 3, (bit >> 3) + wholeBytes);
    bit += wholeBytes << 3;
  }
  while (bit < end) {
    target[bit >> 3]! |= 1 << (bit & 7);
    bit++;
  }
}

export function isBitSet(bits: Uint8Array, index: number): boolean {
  return ((bits[index >> 3]! >> (index & 7)) & 1) === 1;
}

/** Bytes needed for `bitCount` bits, rounded to 8 bytes as Arrow buffers like. */
export function bitmapByteLength(bitCount: number): number {
  return ((bitCount + 63) >> 6) << 3;
}
