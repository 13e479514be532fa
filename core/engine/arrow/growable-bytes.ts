/**
 * A byte buffer that grows by doubling and is reused from batch to batch.
 *
 * Batches must own their memory (the IPC encoder keeps views of it while the socket
 * drains), so `take()` copies the written bytes out into a buffer of exactly their size
 * and keeps this one for the next batch. The copy is cheap next to what it saves: the
 * batch's memory is allocated when the batch is finished rather than when it is started,
 * so it is young (reclaimed by a cheap young-generation collection) when the consumer
 * drops it soon after, and no slack past the written bytes is handed out with it.
 */
export class GrowableBytes {
  bytes: Uint8Array;
  length = 0;
  private readonly initialCapacity: number;

  constructor(initialCapacity = 1024) {
    this.initialCapacity = Math.max(8, initialCapacity);
    this.bytes = new Uint8Array(this.initialCapacity);
  }

  /** Makes room for `additional` more bytes past `length`. */
  reserve(additional: number): Uint8Array {
    const needed = this.length + additional;
    if (needed > this.bytes.length) {
      let capacity = Math.max(this.bytes.length * 2, this.initialCapacity);
      while (capacity < needed) capacity *= 2;
      const grown = new Uint8Array(capacity);
      grown.set(this.bytes.subarray(0, this.length));
      this.bytes = grown;
    }
    return this.bytes;
  }

  append(source: Uint8Array): void {
    this.reserve(source.length);
    this.bytes.set(source, this.length);
    this.length += source.length;
  }

  /**
   * The written bytes, copied into their own ArrayBuffer (at offset 0); the builder starts
   * over empty with its capacity kept, since the next batch of a result is usually as large.
   * Past SHRINK_ABOVE, a buffer at least half full is handed over instead (no copy).
   * A capacity far beyond what the batch needed (one exceptional batch) is given back.
   */
  take(): Uint8Array {
    if (this.length > SHRINK_ABOVE && this.length * 2 >= this.bytes.length) {
      // A batch of huge values (a chunk cut by bytes): hand the buffer over rather than copy
      // tens of MiB once more; its slack is at most the written size.
      const handedOver = this.bytes.subarray(0, this.length);
      this.bytes = new Uint8Array(this.initialCapacity);
      this.length = 0;
      return handedOver;
    }
    const taken = this.bytes.slice(0, this.length);
    if (this.bytes.length > SHRINK_ABOVE && this.bytes.length > 4 * this.length) {
      this.bytes = new Uint8Array(Math.max(this.initialCapacity, this.length * 2));
    }
    this.length = 0;
    return taken;
  }
}

/**
 * Rows an accumulator makes room for at first. A DuckDB vector holds up to 2048, but most
 * answers are a few rows: starting at 2048 cost every short query tens of KiB per column,
 * which V8 counts as external memory and answers with full collections. Capacities double
 * (once per result, then reused batch after batch) when rows need more.
 */
export const INITIAL_ROWS = 64;

/** Capacities up to this are kept whatever the batch used. */
const SHRINK_ABOVE = 4 * 1024 * 1024;
