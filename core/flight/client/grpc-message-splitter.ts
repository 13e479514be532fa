import * as grpc from '@grpc/grpc-js';
import { GRPC_PREFIX_BYTES } from '../pre-framed-messages.js';
import { GrpcStatusError } from './grpc-status-error.js';

const EMPTY = Buffer.alloc(0);

/**
 * Splits a gRPC response body, as HTTP/2 DATA frames bring it, into its length-prefixed
 * messages. A message that arrived in one chunk is returned as a view of it; one spread over
 * several chunks is copied together once, when its last byte came (not re-concatenated per
 * chunk: a 4 MiB FlightData comes in ~256 frames of 16 KiB).
 */
export class GrpcMessageSplitter {
  readonly #chunks: Buffer[] = [];
  /** The oldest chunk not yet consumed. */
  #head = 0;
  #buffered = 0;
  /** The length of the message being read, once its prefix was. */
  #expected: number | undefined;

  /** Bytes received that do not make a whole message yet. */
  get pending(): number {
    return this.#buffered + (this.#expected === undefined ? 0 : GRPC_PREFIX_BYTES);
  }

  /** The messages `chunk` completes, in order. */
  push(chunk: Buffer): Buffer[] {
    if (chunk.byteLength > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.byteLength;
    }
    const messages: Buffer[] = [];
    for (;;) {
      if (this.#expected === undefined) {
        if (this.#buffered < GRPC_PREFIX_BYTES) break;
        const prefix = this.#take(GRPC_PREFIX_BYTES);
        // Nothing here asks for compression (no grpc-accept-encoding), so a server must not use it.
        if (prefix[0] !== 0) throw new GrpcStatusError(grpc.status.INTERNAL, `a compressed gRPC message arrived (flag ${prefix[0]}), but none was accepted`);
        this.#expected = prefix.readUInt32BE(1);
      }
      if (this.#buffered < this.#expected) break;
      messages.push(this.#take(this.#expected));
      this.#expected = undefined;
    }
    return messages;
  }

  #take(bytes: number): Buffer {
    this.#buffered -= bytes;
    if (bytes === 0) return EMPTY;
    const first = this.#chunks[this.#head]!;
    if (first.byteLength >= bytes) {
      if (first.byteLength === bytes) this.#drop();
      else this.#chunks[this.#head] = first.subarray(bytes);
      return first.subarray(0, bytes);
    }
    const joined = Buffer.allocUnsafe(bytes);
    let filled = 0;
    while (filled < bytes) {
      const chunk = this.#chunks[this.#head]!;
      const part = Math.min(chunk.byteLength, bytes - filled);
      chunk.copy(joined, filled, 0, part);
      filled += part;
      if (part === chunk.byteLength) this.#drop();
      else this.#chunks[this.#head] = chunk.subarray(part);
    }
    return joined;
  }

  /**
   * Done with the oldest chunk: its slot is emptied (the bytes are not kept) and an index
   * moves on; consumed slots are cut off in bulk, not with a shift per chunk.
   */
  #drop(): void {
    this.#chunks[this.#head++] = EMPTY;
    if (this.#head === this.#chunks.length) {
      this.#chunks.length = 0;
      this.#head = 0;
    } else if (this.#head >= 1024) {
      this.#chunks.splice(0, this.#head);
      this.#head = 0;
    }
  }
}
