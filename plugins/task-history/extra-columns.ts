import { Int64, makeData, TimestampMicrosecond, type Data, type RecordBatch } from 'apache-arrow';
import { int64Column, recordBatchOf, writeInt64 } from './fixed-column.js';
import { ENTRY_TYPE, EXTRAS_SCHEMA, LABELS_TYPE } from './stored-schemas.js';
import { TextColumn, wellFormed } from './text-column.js';

/** A row's rare parts; undefined ones are NULL. `labels`: another task's (a query's live in its shape). */
export interface RowExtras {
  readonly traceId: string | undefined;
  readonly spanId: string | undefined;
  readonly parentSpanId: string | undefined;
  readonly capturedOutput: string | undefined;
  readonly errorMessage: string | undefined;
  readonly labels: Readonly<Record<string, string>> | undefined;
}

const INITIAL_ROWS = 64;

/** The extras of a batch's rows (`EXTRAS_SCHEMA`): few rows have any. */
export class ExtraColumns {
  readonly #ids = int64Column(INITIAL_ROWS);
  readonly #startTime = int64Column(INITIAL_ROWS);
  readonly #traceId = new TextColumn();
  readonly #spanId = new TextColumn();
  readonly #parentSpanId = new TextColumn();
  readonly #capturedOutput = new TextColumn();
  readonly #errorMessage = new TextColumn();
  readonly #labelKeys = new TextColumn();
  readonly #labelValues = new TextColumn();
  #labelOffsets = new Int32Array(INITIAL_ROWS + 1);
  #labelValidity = new Uint8Array(INITIAL_ROWS / 8);
  #labelNulls = 0;
  #count = 0;

  get count(): number {
    return this.#count;
  }

  /** `startMicros` as the row's: retention deletes extras by it, with their row. Returns the text's size, to bound the buffer. */
  add(id: number, startMicros: number, extras: RowExtras): number {
    const row = this.#count;
    this.#ensure(row + 1);
    writeInt64(this.#ids.values, row, id);
    writeInt64(this.#startTime.values, row, startMicros);
    const text = (column: TextColumn, value: string | undefined) => column.append(value === undefined ? undefined : wellFormed(value));
    text(this.#traceId, extras.traceId);
    text(this.#spanId, extras.spanId);
    text(this.#parentSpanId, extras.parentSpanId);
    text(this.#capturedOutput, extras.capturedOutput);
    text(this.#errorMessage, extras.errorMessage);
    let size = (extras.traceId?.length ?? 0) + (extras.spanId?.length ?? 0) + (extras.parentSpanId?.length ?? 0) + (extras.capturedOutput?.length ?? 0) + (extras.errorMessage?.length ?? 0);
    if (extras.labels === undefined) {
      this.#labelNulls += 1;
    } else {
      this.#labelValidity[row >> 3] = this.#labelValidity[row >> 3]! | (1 << (row & 7));
      let names = extras.labels;
      for (const name in names) {
        if (name.isWellFormed()) continue;
        // Names that differ only in lone surrogates collide once repaired: the last one wins, as in an object.
        names = Object.fromEntries(Object.entries(names).map(([key, value]) => [key.toWellFormed(), value]));
        break;
      }
      for (const name in names) {
        this.#labelKeys.append(name);
        this.#labelValues.append(wellFormed(names[name]!));
        size += name.length + names[name]!.length;
      }
    }
    this.#labelOffsets[row + 1] = this.#labelKeys.length;
    this.#count = row + 1;
    return size;
  }

  batch(): RecordBatch {
    const length = this.#count;
    const entries = makeData({ type: ENTRY_TYPE, length: this.#labelKeys.length, nullCount: 0, children: [this.#labelKeys.data(), this.#labelValues.data()] } as never) as Data;
    const labels = makeData({
      type: LABELS_TYPE,
      length,
      nullCount: this.#labelNulls,
      nullBitmap: this.#labelNulls > 0 ? this.#labelValidity.subarray(0, Math.ceil(length / 8)) : null,
      valueOffsets: this.#labelOffsets.subarray(0, length + 1),
      child: entries,
    } as never) as Data;
    return recordBatchOf(EXTRAS_SCHEMA, length, [
      this.#ids.data(new Int64(), length), this.#startTime.data(new TimestampMicrosecond(), length),
      this.#traceId.data(), this.#spanId.data(), this.#parentSpanId.data(), this.#capturedOutput.data(), this.#errorMessage.data(), labels,
    ]);
  }

  clear(): void {
    for (const column of [this.#traceId, this.#spanId, this.#parentSpanId, this.#capturedOutput, this.#errorMessage, this.#labelKeys, this.#labelValues]) column.clear();
    this.#labelValidity.fill(0);
    this.#labelNulls = 0;
    this.#count = 0;
  }

  #ensure(rows: number): void {
    this.#ids.ensure(rows);
    this.#startTime.ensure(rows);
    if (rows < this.#labelOffsets.length) return;
    const capacity = Math.max(rows, (this.#labelOffsets.length - 1) * 2);
    const offsets = new Int32Array(capacity + 1);
    offsets.set(this.#labelOffsets);
    this.#labelOffsets = offsets;
    const validity = new Uint8Array(Math.ceil(capacity / 8));
    validity.set(this.#labelValidity);
    this.#labelValidity = validity;
  }
}
