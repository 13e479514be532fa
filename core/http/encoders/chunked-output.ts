/**
 * Output bytes cut into Buffers of about `chunkBytes` for the HTTP layer to write with
 * back-pressure. Writers reserve room, possibly much more than a chunk at once (a slice
 * of rows); the filled area is then handed out as pieces of at most `chunkBytes` sharing
 * its memory. Handed-out memory is never written again.
 *
 * The area starts small and doubles up to `chunkBytes`: most answers are a few hundred
 * bytes, and a 256 KiB Buffer per response (two, with the one allocated after the last
 * cut) made V8 run a full collection every few dozen queries for the external memory
 * alone. A piece much smaller than its area is copied out, so a short answer kept by the
 * results cache does not pin a whole chunk, and the area is reused.
 */
export class ChunkedOutput {
  private chunk: Buffer;
  position = 0;
  private readonly ready: Buffer[] = [];

  constructor(private readonly chunkBytes: number) {
    this.chunk = Buffer.allocUnsafe(Math.min(chunkBytes, FIRST_AREA_BYTES));
  }

  /** The current buffer with room for `byteCount` more bytes at `position`. */
  reserve(byteCount: number): Buffer {
    const needed = this.position + byteCount;
    if (needed > this.chunk.length) {
      if (this.chunk.length === 0) {
        // After a cut of a large answer: the next area at full size at once.
        this.chunk = Buffer.allocUnsafe(Math.max(this.chunkBytes, needed));
      } else if (this.position < this.chunkBytes / 4 || this.chunk.length < this.chunkBytes) {
        // Little written yet (e.g. just `[`), or the area is still growing: carry it over rather than ship a small piece.
        let capacity = Math.min(this.chunkBytes, this.chunk.length * 2);
        while (capacity < needed && capacity < this.chunkBytes) capacity = Math.min(this.chunkBytes, capacity * 2);
        const grown = Buffer.allocUnsafe(Math.max(capacity, needed));
        this.chunk.copy(grown, 0, 0, this.position);
        this.chunk = grown;
      } else {
        this.cut();
        if (byteCount > this.chunk.length) this.chunk = Buffer.allocUnsafe(byteCount);
      }
    }
    return this.chunk;
  }

  write(bytes: Uint8Array): void {
    const chunk = this.reserve(bytes.length);
    chunk.set(bytes, this.position);
    this.position += bytes.length;
  }

  /** True once a full chunk is waiting (or more than a chunk's worth is written). */
  get hasReady(): boolean {
    if (this.position >= this.chunkBytes) this.cut();
    return this.ready.length > 0;
  }

  /** Chunks completed so far; with `all`, also the partial current one. */
  take(all = false): Buffer[] {
    if (all) this.cut();
    return this.ready.splice(0, this.ready.length);
  }

  private cut(): void {
    if (this.position === 0) return;
    if (this.position * 4 <= this.chunk.length) {
      // A small piece of a large area: copied out, and the area kept for what comes next.
      this.ready.push(Buffer.from(this.chunk.subarray(0, this.position)));
      this.position = 0;
      return;
    }
    // Even pieces: a 300 KiB area with 256 KiB chunks gives 2 × 150 KiB, not 256 + 44.
    const pieces = Math.ceil(this.position / this.chunkBytes);
    const pieceBytes = Math.ceil(this.position / pieces);
    for (let start = 0; start < this.position; start += pieceBytes) {
      this.ready.push(this.chunk.subarray(start, Math.min(start + pieceBytes, this.position)));
    }
    // The pieces own the old area now; a new one is allocated (at full size: the answer is large) when writing goes on.
    this.chunk = EMPTY;
    this.position = 0;
  }
}

/** Where the area starts: a typical short answer fits, a large one doubles its way up. */
const FIRST_AREA_BYTES = 4 * 1024;
const EMPTY = Buffer.alloc(0);

/** Default size of the Buffers the text encoders yield. */
export const DEFAULT_CHUNK_BYTES = 256 * 1024;
