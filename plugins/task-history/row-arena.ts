/** Bytes an arena starts with; it grows to the largest batch it held and keeps that. */
const INITIAL_BYTES = 64 * 1024;

/**
 * Encoded task rows as one JSON array text in a Buffer, off the JS heap. Rows wait up to
 * ~100 ms for their INSERT: held as strings or objects they outlive young-generation
 * collections and are copied and promoted by the thousand on a busy runtime; here each
 * row's JSON text is garbage as soon as it is copied in, and the bytes are reused.
 */
export class RowArena {
  #buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  #length = 0;
  #rows = 0;

  get rows(): number {
    return this.#rows;
  }

  /** Bytes held, the closing bracket not counted. */
  get bytes(): number {
    return this.#length;
  }

  /** Appends one row's JSON object text. */
  append(json: string): void {
    // UTF-8 needs at most 3 bytes per UTF-16 unit; +2 for the separator and the closing bracket.
    const worst = json.length * 3 + 2;
    if (this.#length + worst > this.#buffer.length) this.#grow(this.#length + worst);
    this.#buffer[this.#length++] = this.#rows === 0 ? 0x5b /* [ */ : 0x2c /* , */;
    this.#length += this.#buffer.write(json, this.#length, 'utf8');
    this.#rows += 1;
  }

  /**
   * The rows as a JSON array (a view of the arena's own bytes: valid until `clear()`), or
   * an empty array's text when there are none.
   */
  json(): Uint8Array {
    if (this.#rows === 0) return Buffer.from('[]');
    this.#buffer[this.#length] = 0x5d; // ]
    return this.#buffer.subarray(0, this.#length + 1);
  }

  clear(): void {
    this.#length = 0;
    this.#rows = 0;
  }

  #grow(needed: number): void {
    const larger = Buffer.allocUnsafe(Math.max(needed, this.#buffer.length * 2));
    this.#buffer.copy(larger, 0, 0, this.#length);
    this.#buffer = larger;
  }
}
