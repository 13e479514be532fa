/**
 * Output bytes cut into Buffers of about `chunkBytes` for the HTTP layer to write with
 * back-pressure. Writers reserve room, possibly much more than a chunk at once (a slice
 * of rows); the filled area is then handed out as pieces of at most `chunkBytes` sharing
 * its memory. Handed-out memory is never written again.
 */
export class ChunkedOutput {
  private chunk: Buffer;
  position = 0;
  private readonly ready: Buffer[] = [];

  constructor(private readonly chunkBytes: number) {
    this.chunk = Buffer.allocUnsafe(chunkBytes);
  }

  /** The current buffer with room for `byteCount` more bytes at `position`. */
  reserve(byteCount: number): Buffer {
    if (this.position + byteCount > this.chunk.length) {
      if (this.position < this.chunkBytes / 4) {
        // Little written yet (e.g. just `[`): carry it over rather than ship a tiny piece.
        const grown = Buffer.allocUnsafe(Math.max(this.chunkBytes, this.position + byteCount));
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
    // Even pieces: a 300 KiB area with 256 KiB chunks gives 2 × 150 KiB, not 256 + 44.
    const pieces = Math.ceil(this.position / this.chunkBytes);
    const pieceBytes = Math.ceil(this.position / pieces);
    for (let start = 0; start < this.position; start += pieceBytes) {
      this.ready.push(this.chunk.subarray(start, Math.min(start + pieceBytes, this.position)));
    }
    this.chunk = Buffer.allocUnsafe(this.chunkBytes);
    this.position = 0;
  }
}

/** Default size of the Buffers the text encoders yield. */
export const DEFAULT_CHUNK_BYTES = 256 * 1024;
