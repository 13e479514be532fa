import { Table, tableFromIPC, tableToIPC, type Data, type RecordBatch, type Schema } from 'apache-arrow';

export type ResultEncoding = 'none' | 'zstd';

/**
 * A query result as the cache holds it, in exactly the bytes `max_size` counts:
 * - `none`: batches whose buffers lie in memory about the size their rows need are kept as
 *   they are (the engine's batches do: each owns its memory), at the cost of nothing; bytes
 *   count that memory. Any other result (a slice, or batches that are windows on a larger
 *   buffer, such as batches decoded from a message, which would pin all of it) is copied
 *   through one Arrow IPC stream and kept as views into it. A hit serves the batches with no
 *   decoding.
 * - `zstd`: the zstd-compressed Arrow IPC stream; each hit decompresses and decodes it.
 */
export interface StoredResult {
  readonly schema: Schema;
  readonly encoding: ResultEncoding;
  readonly batches: readonly RecordBatch[] | undefined;
  readonly compressed: Uint8Array | undefined;
  /** Bytes held: the batches' buffers (`none`) or the compressed IPC stream (`zstd`). */
  readonly bytes: number;
  readonly rows: number;
  /** Response bodies doors encoded from this result (see ResultMemo); their bytes count in the entry's size. */
  readonly rendered: Map<string, Uint8Array>;
}

/** zstd level 3: zstd's default, near level 1's speed and within 3% of level 9's size on result data. */
const ZSTD_LEVEL = 3;

type Zstd = typeof import('@bokuweb/zstd-wasm');
let zstd: Zstd | undefined;
let zstdReady: Promise<void> | undefined;

/**
 * The zstd wasm module loads and compiles once per process, and only when a cache uses
 * `encoding: zstd` (imported here rather than at the top: start-up loads no unused module);
 * await before encoding with `zstd`.
 */
export function prepareEncoding(encoding: ResultEncoding): Promise<void> {
  if (encoding === 'none') return Promise.resolve();
  zstdReady ??= import('@bokuweb/zstd-wasm').then(async (module) => {
    await module.init();
    zstd = module;
  });
  return zstdReady;
}

function loadedZstd(): Zstd {
  if (!zstd) throw new Error('zstd is not loaded: prepareEncoding("zstd") must be awaited first');
  return zstd;
}

/** The IPC stream of a result; a result without rows keeps its schema. */
export function resultToIpc(schema: Schema, batches: readonly RecordBatch[]): Uint8Array {
  return tableToIPC(new Table(schema, batches as RecordBatch[]), 'stream');
}

export function encodeResult(schema: Schema, batches: readonly RecordBatch[], encoding: ResultEncoding): StoredResult {
  const rows = batches.reduce((total, batch) => total + batch.numRows, 0);
  const rendered = new Map<string, Uint8Array>();
  if (encoding === 'zstd') {
    const compressed = loadedZstd().compress(resultToIpc(schema, batches), ZSTD_LEVEL);
    return { schema, encoding, batches: undefined, compressed, bytes: compressed.byteLength, rows, rendered };
  }
  if (batches.every((batch) => holdsOnlyItsRows(batch.data))) {
    return { schema, encoding, batches, compressed: undefined, bytes: heldBytes(batches) + arrowObjectsBytes(schema, batches), rows, rendered };
  }
  const ipc = resultToIpc(schema, batches);
  // Schema and batches as decoded, so a hit serves what a zstd hit would decode too.
  const table = tableFromIPC(ipc);
  return { schema: table.schema, encoding, batches: table.batches, compressed: undefined, bytes: ipc.byteLength + arrowObjectsBytes(table.schema, table.batches), rows, rendered };
}

/**
 * What the Arrow objects of kept batches hold beside their buffers: a batch and its column
 * data objects (measured in quarryd: ~7 KiB more for a one-row, ten-column result than for
 * an empty one). A result of many small batches costs this per batch.
 */
export const ARROW_OBJECT_BYTES = 640;

function arrowObjectsBytes(schema: Schema, batches: readonly RecordBatch[]): number {
  return batches.length * (schema.fields.length + 1) * ARROW_OBJECT_BYTES;
}

/** Schema and batches of a stored result, decompressing and decoding when it is compressed. */
export function decodeStored(stored: StoredResult): { schema: Schema; batches: readonly RecordBatch[] } {
  if (stored.batches) return { schema: stored.schema, batches: stored.batches };
  const table = tableFromIPC(loadedZstd().decompress(stored.compressed!));
  return { schema: table.schema, batches: table.batches };
}

/**
 * Memory a buffer may span beyond what its rows need and still be kept as it is: builders
 * round up (bitmaps start at 256 bytes, growable buffers double). Past it, the result is
 * copied: keeping it would pin memory nothing reads.
 */
const allowedSpan = (needed: number) => 2 * needed + 1024;

type BufferedData = Data & { values?: ArrayBufferView & { BYTES_PER_ELEMENT: number }; valueOffsets?: Int32Array | BigInt64Array; typeIds?: Int8Array };

/** Whether every buffer of the data (and of its children) lies in memory not much larger than its rows need, at offset 0. */
function holdsOnlyItsRows(data: Data): boolean {
  if (data.offset !== 0) return false;
  const { length, values, valueOffsets, nullBitmap, typeIds } = data as BufferedData;
  const fits = (buffer: ArrayBufferView | undefined | null, needed: number) => !buffer || buffer.buffer.byteLength <= allowedSpan(needed);
  if (!fits(nullBitmap, Math.ceil(length / 8)) || !fits(typeIds, length)) return false;
  if (valueOffsets) {
    if (!fits(valueOffsets, (length + 1) * valueOffsets.BYTES_PER_ELEMENT)) return false;
    // Variable-width values: the offsets say how many bytes the rows use.
    if (!fits(values, Number(valueOffsets[length] ?? 0))) return false;
  } else if (values && !fits(values, values.BYTES_PER_ELEMENT * data.stride * length)) {
    return false;
  }
  return data.children.every((child) => holdsOnlyItsRows(child));
}

/** Bytes of the memory the batches' buffers lie in, each piece of memory counted once. */
function heldBytes(batches: readonly RecordBatch[]): number {
  const memory = new Set<ArrayBufferLike>();
  const pending: Data[] = batches.map((batch) => batch.data);
  while (pending.length > 0) {
    const data = pending.pop()! as BufferedData;
    for (const buffer of [data.values, data.valueOffsets, data.nullBitmap, data.typeIds]) if (buffer) memory.add(buffer.buffer);
    pending.push(...data.children);
    if (data.dictionary) pending.push(...data.dictionary.data);
  }
  let total = 0;
  for (const buffer of memory) total += buffer.byteLength;
  return total;
}

/**
 * Bytes a batch's buffers span (their views, not the larger buffers they may sit in):
 * a cheap running estimate while a result streams, to stop collecting one too big to keep.
 */
export function batchViewBytes(batch: RecordBatch): number {
  let total = 0;
  const pending: Data[] = [batch.data];
  while (pending.length > 0) {
    const data = pending.pop()!;
    for (const buffer of [data.values, data.valueOffsets, data.nullBitmap, data.typeIds] as Array<ArrayBufferView | undefined>) if (buffer) total += buffer.byteLength;
    pending.push(...data.children);
    if (data.dictionary) pending.push(...data.dictionary.data);
  }
  return total;
}
