/**
 * Bytes from the wire as Arrow's typed views can read them. Arrow builds `BigInt64Array`,
 * `Float64Array`, `Int32Array` ... views straight over a message body, and a typed view must
 * start at a multiple of its element size. A body that sits at an odd offset of a network
 * buffer (gRPC slices messages out of its frames wherever they fall) is copied into fresh,
 * 8-byte aligned memory; an aligned one is used in place.
 *
 * Not `Buffer#slice()`: on a Node Buffer it is a view over the same (misaligned) memory.
 */
export function alignedBytes(bytes: Uint8Array, alignment = 8): Uint8Array {
  if (bytes.byteOffset % alignment === 0) return bytes;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}
