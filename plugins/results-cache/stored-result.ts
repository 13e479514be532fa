import { Table, tableFromIPC, tableToIPC, type Data, type RecordBatch, type Schema } from 'apache-arrow';

export type ResultEncoding = 'none' | 'zstd';

/**
 * A query result as the cache holds it: always the Arrow IPC stream bytes of the result,
 * so `max_size` counts what is really held.
 * - `none`: the IPC bytes are decoded by the first hit that needs batches (most hits send a
 *   body a door encoded before, see `rendered`), then kept: the batches are views into that
 *   one buffer, so later hits cost no decoding and the entry holds exactly `bytes`. (The
 *   engine's own batches cannot be kept: a 6-row result can pin a 90 KB vector buffer.)
 * - `zstd`: only the compressed bytes are held; each hit decompresses and decodes them.
 */
export interface StoredResult {
  readonly schema: Schema;
  readonly encoding: ResultEncoding;
  /** `none`: the IPC stream, until the first decode replaces it with `batches`. */
  ipc: Uint8Array | undefined;
  batches: readonly RecordBatch[] | undefined;
  readonly compressed: Uint8Array | undefined;
  /** Bytes held: the IPC stream (`none`) or its compressed form (`zstd`). */
  readonly bytes: number;
  /** Bytes of the IPC stream before compression (equal to `bytes` for `none`). */
  readonly ipcBytes: number;
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
  const ipc = resultToIpc(schema, batches);
  const rows = batches.reduce((total, batch) => total + batch.numRows, 0);
  const rendered = new Map<string, Uint8Array>();
  if (encoding === 'zstd') {
    const compressed = loadedZstd().compress(ipc, ZSTD_LEVEL);
    return { schema, encoding, ipc: undefined, batches: undefined, compressed, bytes: compressed.byteLength, ipcBytes: ipc.byteLength, rows, rendered };
  }
  // Decoded when a hit first needs batches: storing costs one encode, not an encode and a decode.
  return { schema, encoding, ipc, batches: undefined, compressed: undefined, bytes: ipc.byteLength, ipcBytes: ipc.byteLength, rows, rendered };
}

/**
 * Schema and batches of a stored result as decoded from its IPC bytes (what every hit
 * serves, whatever the encoding): an uncompressed entry is decoded once and keeps the
 * batches; a compressed one is decompressed and decoded each time.
 */
export function decodeStored(stored: StoredResult): { schema: Schema; batches: readonly RecordBatch[] } {
  if (stored.batches) return { schema: stored.schema, batches: stored.batches };
  if (stored.ipc) {
    stored.batches = tableFromIPC(stored.ipc).batches;
    stored.ipc = undefined;
    return { schema: stored.schema, batches: stored.batches };
  }
  const table = tableFromIPC(loadedZstd().decompress(stored.compressed!));
  return { schema: table.schema, batches: table.batches };
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
