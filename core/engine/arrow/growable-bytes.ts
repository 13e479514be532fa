/**
 * A byte buffer that grows by doubling, handed off whole when a batch is finished.
 *
 * Batches must own their memory (the IPC encoder keeps views of it while the socket
 * drains), so `take()` gives the buffer away and the next append starts a fresh one.
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
   * The written bytes (offset 0 of their own ArrayBuffer); the builder starts over empty,
   * sized like the batch just taken: the next batch of a result is usually as large, and
   * growing to it by doubling would copy everything about once more.
   */
  take(): Uint8Array {
    const taken = this.bytes.slice(0, this.length);
    this.length = 0;
    return taken;
  }
}
