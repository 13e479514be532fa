import {
  Field, Float64, makeData, Map_, RecordBatch, Schema, Struct, TimestampNanosecond, Utf8, type Data, type DataType,
} from 'apache-arrow';
import type { RowHead, TaskRow } from './table.js';

/** Bytes a text column starts with; it grows to the largest batch it held and keeps that. */
const INITIAL_BYTES = 16 * 1024;
const INITIAL_ROWS = 256;
/** Text up to this many UTF-16 units is tried as ASCII in JS before Buffer#write. */
const SHORT_TEXT = 48;

/** Lone UTF-16 surrogates become U+FFFD (what UTF-8 encoding does anyway), said explicitly. */
function wellFormed(text: string): string {
  return text.isWellFormed() ? text : text.toWellFormed();
}

/** A growing Utf8 column: bytes outside the JS heap, offsets, validity. Reused batch after batch. */
class TextColumn {
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

  /** A UUID's 32 hex digits, its dashes dropped as it is copied (no new string for each). */
  appendUuidHex(uuid: string): void {
    if (uuid.length !== 36) {
      this.append(uuid.replaceAll('-', ''));
      return;
    }
    let end = this.#reserve(32);
    const bytes = this.#bytes;
    for (let index = 0; index < 36; index++) {
      const code = uuid.charCodeAt(index);
      if (code !== 0x2d) bytes[end++] = code;
    }
    this.#end(end, true);
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

/** A growing column of 64-bit values (floats, or nanosecond timestamps as integers). */
class WideColumn<T extends Float64Array | BigInt64Array> {
  #values: T;
  readonly #make: (size: number) => T;
  #length = 0;

  constructor(make: (size: number) => T) {
    this.#make = make;
    this.#values = make(INITIAL_ROWS);
  }

  append(value: T[number]): void {
    if (this.#length === this.#values.length) {
      const larger = this.#make(this.#values.length * 2);
      larger.set(this.#values as never);
      this.#values = larger;
    }
    this.#values[this.#length++] = value;
  }

  data<D extends DataType>(type: D): Data<D> {
    return makeData({ type, length: this.#length, nullCount: 0, data: this.#values.subarray(0, this.#length) } as never) as unknown as Data<D>;
  }

  clear(): void {
    this.#length = 0;
  }
}

const ENTRY_TYPE = new Struct<{ key: Utf8; value: Utf8 }>([new Field('key', new Utf8(), false), new Field('value', new Utf8(), true)]);
const MAP_TYPE = new Map_<Utf8, Utf8>(new Field('entries', ENTRY_TYPE, false));

/** The columns of `runtime.task_history`, named as the table's, in its order. */
export const TASK_ROW_SCHEMA = new Schema([
  new Field('trace_id', new Utf8(), false),
  new Field('span_id', new Utf8(), false),
  new Field('parent_span_id', new Utf8(), true),
  new Field('task', new Utf8(), false),
  new Field('input', new Utf8(), false),
  new Field('captured_output', new Utf8(), true),
  new Field('start_time', new TimestampNanosecond(), false),
  new Field('end_time', new TimestampNanosecond(), false),
  new Field('execution_duration_ms', new Float64(), false),
  new Field('error_message', new Utf8(), true),
  new Field('labels', MAP_TYPE, false),
]);

/** Milliseconds since the epoch as nanoseconds (exact: a Date has no finer part). */
const nanoseconds = (date: Date) => BigInt(date.getTime()) * 1_000_000n;

/**
 * Task rows held column by column until their INSERT, their text as UTF-8 outside the JS
 * heap: rows wait up to ~100 ms, and held as objects or strings they would outlive young
 * collections by the thousand on a busy runtime. `batch()` gives them as one Arrow record
 * batch the engine copies into its vectors as they are (no JSON for DuckDB to parse: that
 * cost ~11 µs of its CPU a row, the copy well under one).
 */
export class RowColumns {
  readonly #traceId = new TextColumn();
  readonly #spanId = new TextColumn();
  readonly #parentSpanId = new TextColumn();
  readonly #task = new TextColumn();
  readonly #input = new TextColumn();
  readonly #capturedOutput = new TextColumn();
  readonly #startTime = new WideColumn((size) => new BigInt64Array(size));
  readonly #endTime = new WideColumn((size) => new BigInt64Array(size));
  readonly #duration = new WideColumn((size) => new Float64Array(size));
  readonly #errorMessage = new TextColumn();
  readonly #labelKeys = new TextColumn();
  readonly #labelValues = new TextColumn();
  #labelOffsets = new Int32Array(INITIAL_ROWS + 1);
  #rows = 0;
  #bytes = 0;

  get rows(): number {
    return this.#rows;
  }

  /** Roughly the bytes held (the text of the rows), to bound the buffer. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends a row given as an object (tasks other than queries; label names are repaired if need be). */
  append(row: TaskRow): void {
    this.startRow(row);
    let names: Readonly<Record<string, string>> = row.labels;
    for (const name in names) {
      if (name.isWellFormed()) continue;
      // Names that differ only in lone surrogates collide once repaired: the last one wins, as in an object.
      names = Object.fromEntries(Object.entries(names).map(([key, value]) => [key.toWellFormed(), value]));
      break;
    }
    for (const name in names) this.label(name, names[name]!);
    this.endRow();
  }

  /**
   * Starts a row: every column but its labels, which follow one `label` call each, then
   * `endRow`. A query's row is written this way, with no row or labels object built for it
   * first (on a cache hit those objects, their property lookups and strings cost more than
   * the rest of task history). `traceIdIsUuid`: the trace id is a UUID, copied without its dashes.
   */
  startRow(head: RowHead, traceIdIsUuid = false): void {
    if (traceIdIsUuid) this.#traceId.appendUuidHex(head.traceId);
    else this.#traceId.append(head.traceId);
    this.#spanId.append(head.spanId);
    this.#parentSpanId.append(head.parentSpanId);
    this.#task.append(head.task);
    this.#input.append(wellFormed(head.input));
    this.#capturedOutput.append(head.capturedOutput === undefined ? undefined : wellFormed(head.capturedOutput));
    this.#startTime.append(nanoseconds(head.startTime));
    this.#endTime.append(nanoseconds(head.endTime));
    this.#duration.append(Number.isFinite(head.executionDurationMs) ? head.executionDurationMs : 0);
    this.#errorMessage.append(head.errorMessage === undefined ? undefined : wellFormed(head.errorMessage));
    this.#bytes += 128 + head.input.length + (head.capturedOutput?.length ?? 0) + (head.errorMessage?.length ?? 0);
  }

  /** One label of the row begun by `startRow`; the name must be well-formed (a constant, or repaired). */
  label(name: string, value: string): void {
    this.#labelKeys.append(name);
    this.#labelValues.append(wellFormed(value));
  }

  /** Ends the row begun by `startRow`. */
  endRow(): void {
    const row = this.#rows;
    if (row + 1 >= this.#labelOffsets.length) {
      const offsets = new Int32Array(this.#labelOffsets.length * 2);
      offsets.set(this.#labelOffsets);
      this.#labelOffsets = offsets;
    }
    this.#labelOffsets[row + 1] = this.#labelKeys.length;
    this.#rows = row + 1;
  }

  /** The rows as one record batch (views of these columns' memory: valid until `clear()`). */
  batch(): RecordBatch {
    const length = this.#rows;
    const entries = makeData({
      type: ENTRY_TYPE,
      length: this.#labelKeys.length,
      nullCount: 0,
      children: [this.#labelKeys.data(), this.#labelValues.data()],
    } as never) as Data;
    const labels = makeData({ type: MAP_TYPE, length, nullCount: 0, valueOffsets: this.#labelOffsets.subarray(0, length + 1), child: entries } as never) as Data;
    const children = [
      this.#traceId.data(), this.#spanId.data(), this.#parentSpanId.data(), this.#task.data(), this.#input.data(), this.#capturedOutput.data(),
      this.#startTime.data(new TimestampNanosecond()), this.#endTime.data(new TimestampNanosecond()), this.#duration.data(new Float64()),
      this.#errorMessage.data(), labels,
    ];
    const struct = makeData({ type: new Struct(TASK_ROW_SCHEMA.fields), length, nullCount: 0, children } as never) as unknown as Data<Struct>;
    return new RecordBatch(TASK_ROW_SCHEMA, struct);
  }

  clear(): void {
    for (const column of [this.#traceId, this.#spanId, this.#parentSpanId, this.#task, this.#input, this.#capturedOutput, this.#errorMessage, this.#labelKeys, this.#labelValues]) column.clear();
    for (const column of [this.#startTime, this.#endTime, this.#duration]) column.clear();
    this.#rows = 0;
    this.#bytes = 0;
  }
}
