/**
 * Thin wrappers over the raw DuckDB C API bindings used by the Arrow conversion.
 *
 * The node-api vector classes decode values one item at a time into JS values; the
 * conversion instead reads DuckDB's vector memory directly (`vector_get_data`), which is a
 * view over memory DuckDB owns and frees when the chunk goes away. Every caller copies what
 * it reads before returning, so no view escapes a single `append` call.
 */
import duckdb from '@duckdb/node-bindings';

export type RawVector = duckdb.Vector;
export type RawDataChunk = duckdb.DataChunk;

/** Bytes of a vector's data buffer (a view over DuckDB memory: copy before keeping). */
export function vectorBytes(vector: RawVector, byteCount: number): Uint8Array {
  if (byteCount === 0) return new Uint8Array(0);
  return duckdb.vector_get_data(vector, byteCount);
}

/**
 * DuckDB's validity mask for the first `rowCount` rows: an LSB-first bitmap in uint64 words,
 * bit set = valid, the same layout as an Arrow null bitmap. `null` means every row is valid.
 */
export function vectorValidity(vector: RawVector, rowCount: number): Uint8Array | null {
  if (rowCount === 0) return null;
  const bytes = duckdb.vector_get_validity(vector, Math.ceil(rowCount / 64) * 8);
  return bytes && bytes.byteLength > 0 ? bytes : null;
}

export function chunkVector(chunk: RawDataChunk, columnIndex: number): RawVector {
  return duckdb.data_chunk_get_vector(chunk, columnIndex);
}

export function chunkRowCount(chunk: RawDataChunk): number {
  return duckdb.data_chunk_get_size(chunk);
}

export function listChild(vector: RawVector): RawVector {
  return duckdb.list_vector_get_child(vector);
}

/** Number of rows in a list vector's child (the sum of all list lengths, possibly more). */
export function listChildLength(vector: RawVector): number {
  return duckdb.list_vector_get_size(vector);
}

export function arrayChild(vector: RawVector): RawVector {
  return duckdb.array_vector_get_child(vector);
}

export function structChild(vector: RawVector, childIndex: number): RawVector {
  return duckdb.struct_vector_get_child(vector, childIndex);
}

/**
 * Copies `byteCount` bytes from the address stored (as a native pointer) at
 * `pointerOffset` of `buffer`. One native call per use: callers batch adjacent strings
 * into one call because the call itself costs far more than copying a short string.
 */
export function bytesAtPointer(buffer: ArrayBuffer, pointerOffset: number, byteCount: number): Uint8Array {
  return duckdb.get_data_from_pointer(buffer, pointerOffset, byteCount);
}

/** DuckDB's in-memory size of BOOLEAN (1 on every supported platform; checked once). */
export const booleanByteWidth: number = duckdb.sizeof_bool;
