/**
 * Lets a server stream hand grpc-js messages that already carry gRPC's 5-byte length prefix.
 *
 * grpc-js frames every message it sends by allocating a new buffer of the message's size plus
 * five bytes and copying the message into it. For DoGet that is the whole result copied once
 * more into fresh memory: 600 MB for the flight-doget bench's 10M rows, a quarter of quarryd's
 * JavaScript thread (the copy, and the full garbage collections V8 runs as that much off-heap
 * memory comes and goes). A result stream encodes FlightData behind room for the prefix in a
 * recycled buffer (result-streaming.ts); this makes the call send such a buffer as it is.
 *
 * It depends on grpc-js's server call, not on its public API: the writable stream's `call`,
 * whose `serializeMessage(value)` returns the framed bytes `sendMessage` writes. When the call
 * does not look like that (another grpc-js version, an interceptor in between), it answers
 * false and the caller sends plain messages, which grpc-js frames as usual. A buffer is sent
 * as it is only when it was marked here; anything else goes through grpc-js's own framing.
 */

/** Bytes of the gRPC length prefix: compressed flag + uint32 big-endian length. */
export const GRPC_PREFIX_BYTES = 5;

const framed = new WeakSet<Uint8Array>();
const enabled = new WeakSet<object>();

interface FramingCall {
  serializeMessage(value: unknown): Buffer;
  sendMessage(message: unknown, callback: () => void): void;
}

/**
 * Makes the grpc-js call behind `stream` send marked buffers as they are, without framing them again;
 * false when the call is not one this knows how to change (then send plain messages).
 */
export function acceptPreFramedMessages(stream: unknown): boolean {
  const call = (stream as { call?: unknown }).call as Partial<FramingCall> | undefined;
  if (call === undefined || call === null || typeof call !== 'object') return false;
  if (enabled.has(call)) return true;
  const original = call.serializeMessage;
  if (typeof original !== 'function' || typeof call.sendMessage !== 'function') return false;
  call.serializeMessage = function serializePreFramed(this: FramingCall, value: unknown): Buffer {
    return value instanceof Uint8Array && framed.has(value) ? (value as Buffer) : original.call(this, value);
  };
  enabled.add(call);
  return true;
}

/**
 * Writes the prefix for the `messageBytes` that follow it in `frame` (which starts with the
 * prefix) and marks the frame to be sent as it is.
 */
export function markPreFramed(frame: Buffer, messageBytes: number): Buffer {
  writeGrpcPrefix(frame, messageBytes);
  framed.add(frame);
  return frame;
}

/** Writes gRPC's prefix for an uncompressed message of `messageBytes` at the start of `frame`. */
export function writeGrpcPrefix(frame: Buffer, messageBytes: number): void {
  frame[0] = 0;
  frame.writeUInt32BE(messageBytes, 1);
}
