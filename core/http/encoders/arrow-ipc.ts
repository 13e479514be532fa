/**
 * Arrow batches → the Arrow IPC stream format (`application/vnd.apache.arrow.stream`):
 * the schema message, then dictionary and record batch messages as each batch arrives,
 * then the end-of-stream marker. Nothing is buffered beyond the batch being written.
 *
 * apache-arrow's RecordBatchStreamWriter produces the bytes; its own output is an async
 * queue meant to be drained concurrently, so a subclass collects each write's pieces
 * synchronously instead. Small pieces (message headers, padding) are joined; large body
 * buffers are passed on as they are, without copying: batches own their buffers and are
 * not modified after they are produced.
 */
import { RecordBatch, RecordBatchStreamWriter, type Schema } from 'apache-arrow';
import type { EncoderInput } from './types.js';

export interface ArrowIpcEncoderOptions {
  /** Pieces smaller than this are joined into one Buffer (default 64 KiB). */
  readonly coalesceBytes?: number;
}

class CollectingStreamWriter extends RecordBatchStreamWriter {
  readonly pieces: Uint8Array[] = [];

  protected override _write(chunk: Parameters<RecordBatchStreamWriter['_write']>[0]): this {
    if (!this._started) return this;
    // The stream writer only ever writes typed arrays; anything else would be a change in
    // apache-arrow that must not turn into silently missing bytes.
    const bytes = ArrayBuffer.isView(chunk) ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) : chunk instanceof ArrayBuffer ? new Uint8Array(chunk) : null;
    if (bytes === null) throw new Error(`unexpected IPC writer output of type ${typeof chunk}`);
    if (bytes.byteLength > 0) {
      this.pieces.push(bytes);
      this._position += bytes.byteLength;
    }
    return this;
  }
}

/** Turns collected pieces into Buffers of at least `coalesceBytes` where possible. */
function* coalesce(pieces: Uint8Array[], coalesceBytes: number): Generator<Buffer> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = function* (): Generator<Buffer> {
    if (pendingBytes > 0) yield pending.length === 1 ? Buffer.from(pending[0]!.buffer, pending[0]!.byteOffset, pending[0]!.byteLength) : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
  };
  for (const piece of pieces) {
    if (piece.byteLength >= coalesceBytes) {
      yield* flush();
      yield Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    } else {
      pending.push(piece);
      pendingBytes += piece.byteLength;
      if (pendingBytes >= coalesceBytes) yield* flush();
    }
  }
  yield* flush();
}

/** Encodes the stream as Arrow IPC, yielding each batch's bytes as soon as it arrives. */
export async function* encodeArrowStream(input: EncoderInput, options: ArrowIpcEncoderOptions = {}): AsyncGenerator<Buffer, void, undefined> {
  const coalesceBytes = options.coalesceBytes ?? 64 * 1024;
  const writer = new CollectingStreamWriter({ autoDestroy: true });
  writer.reset(undefined, input.schema);
  const drain = (): Generator<Buffer> => coalesce(writer.pieces.splice(0, writer.pieces.length), coalesceBytes);
  yield* drain();
  for await (const batch of input.batches) {
    writeBatch(writer, batch, input.schema);
    yield* drain();
  }
  writer.finish();
  yield* drain();
}

function writeBatch(writer: CollectingStreamWriter, batch: RecordBatch, schema: Schema): void {
  if (batch.numRows === 0) return;
  // The writer silently ends the stream on a batch whose schema object compares unequal
  // (e.g. differing metadata); batches are declared to be of the input schema, so say so.
  writer.write(batch.schema === schema ? batch : new RecordBatch(schema, batch.data));
}
