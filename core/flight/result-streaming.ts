import type { RecordBatch, Schema } from 'apache-arrow';
import { QuarryError } from '../errors/quarry-error.js';
import { encodeFlightData, flightDataSize } from './flight-data.js';
import type { FlightStats } from './flight-stats.js';
import { FlightMessageWriter, type IpcMessage } from './ipc/flight-message-writer.js';
import { acceptPreFramedMessages, GRPC_PREFIX_BYTES, markPreFramed } from './pre-framed-messages.js';

/** The part of a grpc-js server stream the sender needs. */
export interface WritableCall {
  write(chunk: Buffer, callback: (error?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  removeListener(event: 'drain', listener: () => void): unknown;
}

/**
 * At most this many FlightData messages of one stream may be handed to gRPC and not yet
 * written out. With HTTP/2 flow control that bounds what a slow client makes the server
 * hold to a few messages per stream, instead of the whole result.
 */
const MAX_MESSAGES_IN_FLIGHT = 2;

/**
 * Streams a result as FlightData: the schema message first, then per batch its new
 * dictionaries and the record batch, each split by rows so no message exceeds
 * `maxMessageBytes`. The next batch is pulled from the engine only when gRPC has room.
 *
 * FlightData is encoded into a few buffers recycled once gRPC has written them, behind room
 * for gRPC's length prefix, and grpc-js sends them as they are (pre-framed-messages.ts): a
 * stream allocates no new buffer per message and copies each message once. (The engine
 * converts batches ahead on its own while this waits for gRPC.)
 */
export async function streamResult(
  call: WritableCall,
  result: { schema: Schema; batches: AsyncIterable<RecordBatch> },
  options: { maxMessageBytes: number; signal: AbortSignal; stats: FlightStats },
): Promise<{ rows: number }> {
  const buffers = new FrameBuffers();
  const sender = new BackpressuredSender(call, options.signal, options.stats, buffers);
  const writer = new FlightMessageWriter();
  const iterator = result.batches[Symbol.asyncIterator]();
  const frame = framer(call, buffers);
  let finished = false;
  let rows = 0;
  // Pulls the next batch and frames all its messages before anything waits on gRPC: the
  // batch (and its buffers) can then be collected while its messages wait, instead of
  // surviving into the old generation, where only full garbage collections reclaim memory.
  const nextFrames = async (): Promise<Buffer[] | null> => {
    const next = await iterator.next();
    if (next.done) return null;
    options.stats.batchesPulled += 1;
    rows += next.value.numRows;
    return Array.from(splitMessages(writer, next.value, options.maxMessageBytes), frame);
  };
  try {
    for (const message of writer.schemaMessages(result.schema)) await sender.send(frame(message));
    for (;;) {
      if (options.signal.aborted) throw cancelled();
      const frames = await nextFrames();
      if (frames === null) {
        finished = true;
        break;
      }
      for (const bytes of frames) await sender.send(bytes);
    }
    await sender.flushed();
    return { rows };
  } finally {
    // Abandoning the iterator stops the engine query and releases its connection.
    if (!finished) await iterator.return?.().catch(() => undefined);
  }
}

/**
 * Encodes an IPC message as FlightData into a recycled buffer: behind gRPC's prefix when the
 * call sends pre-framed messages, else plain (grpc-js then copies it into a frame of its own).
 */
function framer(call: WritableCall, buffers: FrameBuffers): (message: IpcMessage) => Buffer {
  if (!acceptPreFramedMessages(call)) return (message) => encodeFlightData({ header: message.header, body: message.body }, buffers.allocate);
  return (message) => {
    let frame: Buffer | undefined;
    const encoded = encodeFlightData({ header: message.header, body: message.body }, (size) => {
      frame = buffers.allocate(GRPC_PREFIX_BYTES + size).subarray(0, GRPC_PREFIX_BYTES + size);
      return frame.subarray(GRPC_PREFIX_BYTES);
    });
    return markPreFramed(frame!, encoded.byteLength);
  };
}

/**
 * Buffers FlightData is encoded into, reused once gRPC has written a message out: at most
 * MAX_MESSAGES_IN_FLIGHT are held by gRPC, plus the one being encoded.
 */
class FrameBuffers {
  readonly #free: Buffer[] = [];

  readonly allocate = (size: number): Buffer => {
    if (size < POOLED_MIN_BYTES) return Buffer.allocUnsafe(size);
    for (let i = 0; i < this.#free.length; i++) {
      const buffer = this.#free[i]!;
      if (buffer.byteLength >= size) {
        this.#free.splice(i, 1);
        return buffer;
      }
    }
    // None big enough (batches grew): let one small buffer go, allocate with some slack.
    if (this.#free.length > 0) this.#free.shift();
    return Buffer.allocUnsafeSlow(size + (size >> 4));
  };

  /** Gives back the buffer behind a message gRPC has written (`message` is a view of it). */
  release(message: Buffer): void {
    if (message.byteOffset !== 0 || message.buffer.byteLength < POOLED_MIN_BYTES || this.#free.length > MAX_MESSAGES_IN_FLIGHT) return;
    this.#free.push(Buffer.from(message.buffer, 0, message.buffer.byteLength));
  }
}

/** Smaller messages (schemas, tiny batches) are not worth recycling. */
const POOLED_MIN_BYTES = 64 * 1024;

/** The messages of one batch, re-encoding row slices of it when a record batch is too big. */
function* splitMessages(writer: FlightMessageWriter, batch: RecordBatch, maxMessageBytes: number): Generator<IpcMessage> {
  for (const message of writer.batchMessages(batch)) {
    const size = flightDataSize({ header: message.header, body: message.body });
    if (size <= maxMessageBytes) {
      yield message;
    } else if (message.kind === 'dictionary') {
      throw new QuarryError('FLIGHT_MESSAGE_TOO_LARGE', `a dictionary of ${size} bytes does not fit in one Flight message (runtime.flight.max_message_size = ${maxMessageBytes} bytes)`);
    } else if (batch.numRows <= 1) {
      throw new QuarryError('FLIGHT_MESSAGE_TOO_LARGE', `one row needs ${size} bytes, more than runtime.flight.max_message_size (${maxMessageBytes} bytes)`);
    } else {
      // Aim under the limit (headers grow a little per slice); recursion handles skew.
      const pieces = Math.min(batch.numRows, Math.ceil((size * 1.1) / maxMessageBytes));
      const rowsPerPiece = Math.ceil(batch.numRows / pieces);
      for (let start = 0; start < batch.numRows; start += rowsPerPiece) {
        yield* splitMessages(writer, batch.slice(start, Math.min(batch.numRows, start + rowsPerPiece)), maxMessageBytes);
      }
    }
  }
}

function cancelled(): QuarryError {
  return new QuarryError('QUERY_CANCELLED', 'the Flight call was cancelled by the client');
}

/** Writes FlightData respecting gRPC back-pressure (write() → false waits for 'drain') and a cap on in-flight messages. */
class BackpressuredSender {
  readonly #call: WritableCall;
  readonly #signal: AbortSignal;
  readonly #stats: FlightStats;
  readonly #buffers: FrameBuffers;
  #inFlight = 0;
  #writeError: Error | undefined;
  #wake: (() => void) | undefined;

  constructor(call: WritableCall, signal: AbortSignal, stats: FlightStats, buffers: FrameBuffers) {
    this.#call = call;
    this.#signal = signal;
    this.#stats = stats;
    this.#buffers = buffers;
  }

  async send(bytes: Buffer): Promise<void> {
    if (this.#writeError) throw this.#writeError;
    this.#inFlight += 1;
    this.#stats.messagesInFlight += 1;
    this.#stats.messagesSent += 1;
    this.#stats.bytesSent += bytes.byteLength;
    const hasRoom = this.#call.write(bytes, (error) => {
      this.#inFlight -= 1;
      this.#stats.messagesInFlight -= 1;
      // Written out: gRPC framed (copied) the message long before, its buffer is free again.
      if (error) this.#writeError = error;
      else this.#buffers.release(bytes);
      this.#wake?.();
    });
    if (!hasRoom) await this.#waitFor((resolve) => this.#call.once('drain', resolve), (resolve) => this.#call.removeListener('drain', resolve));
    while (this.#inFlight >= MAX_MESSAGES_IN_FLIGHT) await this.#waitForWrite();
    if (this.#writeError) throw this.#writeError;
  }

  /** Resolves once every message handed to gRPC has been written out. */
  async flushed(): Promise<void> {
    while (this.#inFlight > 0) await this.#waitForWrite();
  }

  #waitForWrite(): Promise<void> {
    return this.#waitFor((resolve) => (this.#wake = resolve), () => (this.#wake = undefined));
  }

  #waitFor(subscribe: (resolve: () => void) => void, unsubscribe: (resolve: () => void) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.#signal.aborted) return reject(cancelled());
      const onAbort = () => {
        unsubscribe(done);
        reject(cancelled());
      };
      const done = () => {
        this.#signal.removeEventListener('abort', onAbort);
        unsubscribe(done);
        resolve();
      };
      this.#signal.addEventListener('abort', onAbort, { once: true });
      subscribe(done);
    });
  }
}
