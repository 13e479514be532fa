/**
 * A growable byte buffer that renderers write into directly. Hot loops read `bytes` and
 * `position` into locals, call `ensure` once for the worst case of what they will write,
 * and store the position back: no per-byte bounds logic, no intermediate strings.
 */
export class ByteWriter {
  bytes: Buffer;
  position = 0;

  // Small to start (a column of a short answer is a few bytes); it doubles as rows need and
  // is reused batch after batch, so a large answer pays for the growth once.
  constructor(initialCapacity = 1024) {
    this.bytes = Buffer.allocUnsafe(initialCapacity);
  }

  /** Guarantees room for `additional` bytes past `position`; returns the (maybe new) buffer. */
  ensure(additional: number): Buffer {
    const needed = this.position + additional;
    if (needed > this.bytes.length) {
      let capacity = this.bytes.length * 2;
      while (capacity < needed) capacity *= 2;
      const grown = Buffer.allocUnsafe(capacity);
      this.bytes.copy(grown, 0, 0, this.position);
      this.bytes = grown;
    }
    return this.bytes;
  }

  writeBytes(source: Uint8Array): void {
    const bytes = this.ensure(source.length);
    bytes.set(source, this.position);
    this.position += source.length;
  }

  /** Appends an ASCII (or Latin-1-free) JS string, one byte per character. */
  writeAscii(text: string): void {
    const bytes = this.ensure(text.length);
    let at = this.position;
    for (let i = 0; i < text.length; i++) bytes[at++] = text.charCodeAt(i);
    this.position = at;
  }

  /** Appends any JS string as UTF-8 (lone surrogates become U+FFFD). */
  writeUtf8(text: string): void {
    this.ensure(text.length * 3);
    this.position += this.bytes.write(text, this.position, 'utf8');
  }

  reset(): void {
    this.position = 0;
  }
}

/** A renderer's output for one column of one batch: row i is `bytes[ends[i-1] .. ends[i])`. */
export interface RenderedColumn {
  readonly writer: ByteWriter;
  ends: Int32Array;
}

export function newRenderedColumn(): RenderedColumn {
  return { writer: new ByteWriter(), ends: new Int32Array(64) };
}

/** Resets `column` for a batch of `rowCount` rows. */
export function prepareRenderedColumn(column: RenderedColumn, rowCount: number): void {
  column.writer.reset();
  if (column.ends.length < rowCount) column.ends = new Int32Array(Math.max(rowCount, column.ends.length * 2));
}
