import { makeData, Utf8, type Data } from 'apache-arrow';

/** Bytes a text column starts with; it grows to the largest batch it held and keeps that. */
const INITIAL_BYTES = 16 * 1024;
const INITIAL_ROWS = 256;
/** Text up to this many UTF-16 units is tried as ASCII in JS before Buffer#write. */
const SHORT_TEXT = 48;

/** Lone UTF-16 surrogates become U+FFFD (what UTF-8 encoding does anyway), said explicitly. */
export function wellFormed(text: string): string {
  return text.isWellFormed() ? text : text.toWellFormed();
}

/** A growing Utf8 column: bytes outside the JS heap, offsets, validity. Reused batch after batch. */
export class TextColumn {
  #bytes = Buffer.allocUnsafe(INITIAL_BYTES);
  #offsets = new Int32Array(INITIAL_ROWS + 1);
  #validity = new Uint8Array(INITIAL_ROWS / 8);
  #length = 0;
  #nulls = 0;

  get length(): number {
    return this.#length;
  }

  append(value: string | undefined): void {
    if (value === undefined) {
      this.#nulls += 1;
      this.#end(this.#reserve(0), false);
      return;
    }
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    const at = this.#reserve(value.length * 3);
    this.#end(at + this.#write(value, at), true);
  }

  /** Room for one more row and `maxBytes` of its text; returns where its bytes start. */
  #reserve(maxBytes: number): number {
    // Room for `capacity` rows: capacity + 1 offsets, capacity bits of validity.
    if (this.#length + 1 >= this.#offsets.length) this.#growRows();
    const start = this.#offsets[this.#length]!;
    if (start + maxBytes > this.#bytes.length) this.#growBytes(start + maxBytes);
    return start;
  }

  /** Ends the row begun by `#reserve` at byte `end`. */
  #end(end: number, valid: boolean): void {
    const row = this.#length;
    if (valid) this.#validity[row >> 3] = this.#validity[row >> 3]! | (1 << (row & 7));
    this.#offsets[row + 1] = end;
    this.#length = row + 1;
  }

  /**
   * Short ASCII text (most label names and values, ids) is copied in JS; anything else, or
   * text that turns out not to be ASCII, goes through Buffer#write (a call into C++ each).
   */
  #write(value: string, at: number): number {
    const length = value.length;
    if (length <= SHORT_TEXT) {
      const bytes = this.#bytes;
      let index = 0;
      for (; index < length; index++) {
        const code = value.charCodeAt(index);
        if (code >= 0x80) break;
        bytes[at + index] = code;
      }
      if (index === length) return length;
    }
    return this.#bytes.write(value, at, 'utf8');
  }

  /** The column as Arrow data (views of this column's memory: valid until `clear()`). */
  data(): Data<Utf8> {
    const length = this.#length;
    return makeData({
      type: new Utf8(),
      length,
      nullCount: this.#nulls,
      nullBitmap: this.#nulls > 0 ? this.#validity.subarray(0, Math.ceil(length / 8)) : null,
      valueOffsets: this.#offsets.subarray(0, length + 1),
      data: this.#bytes.subarray(0, this.#offsets[length]!),
    } as never) as unknown as Data<Utf8>;
  }

  clear(): void {
    this.#length = 0;
    this.#nulls = 0;
    this.#validity.fill(0);
  }

  #growRows(): void {
    const capacity = (this.#offsets.length - 1) * 2;
    const offsets = new Int32Array(capacity + 1);
    offsets.set(this.#offsets);
    this.#offsets = offsets;
    const validity = new Uint8Array(Math.ceil(capacity / 8));
    validity.set(this.#validity);
    this.#validity = validity;
  }

  #growBytes(needed: number): void {
    const larger = Buffer.allocUnsafe(Math.max(needed, this.#bytes.length * 2));
    this.#bytes.copy(larger, 0, 0, this.#offsets[this.#length]!);
    this.#bytes = larger;
  }
}
