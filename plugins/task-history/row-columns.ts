import { Float64, Int64, TimestampMicrosecond, Uint64, type RecordBatch } from 'apache-arrow';
import { ExtraColumns, type RowExtras } from './extra-columns.js';
import { float64Column, int64Column, recordBatchOf, writeInt64 } from './fixed-column.js';
import { writeRandomSpanWords, writeSpanWords, writeTraceWords } from './hex-ids.js';
import { ShapeColumns, type QueryShape } from './shape-columns.js';
import { StoredIds } from './stored-ids.js';
import { ROWS_SCHEMA } from './stored-schemas.js';
import type { RowHead, TaskRow } from './table.js';

const INITIAL_ROWS = 256;

/** A query's row, its labels aside (its trace id is the query's id, a UUID; its span id is new). */
export type QueryHead = Pick<RowHead, 'traceId' | 'input' | 'capturedOutput' | 'startTime' | 'endTime' | 'executionDurationMs' | 'errorMessage'>;

/** A query's labels: its shape, and the counts that differ from query to query. */
export interface QueryLabels extends QueryShape {
  readonly rowsProduced: number;
  readonly executionMs: number;
}

/** The written batches, in the order they are stored (a row's shape and extras before it). */
export interface StoredBatches {
  readonly shapes: RecordBatch;
  readonly extras: RecordBatch;
  readonly rows: RecordBatch;
}

/**
 * Task rows held until they are written, in the form they are stored (`stored-schemas.ts`):
 * on a cache hit the row is most of what a query costs. A query's row is ten numbers: its
 * ids, the id of its shape (SQL text, protocol, datasets, principal, cache status ... stored
 * once for every row that repeats them), times and counts. Rare parts (an error, captured
 * output, another task's labels) go in the batch's extras. The engine spells rows out (hex
 * ids, the labels map) only when `runtime.task_history` is read. Text is held as UTF-8
 * outside the JS heap: rows wait up to ~100 ms, and as objects they would outlive young
 * collections by the thousand.
 */
export class RowColumns {
  readonly #ids: StoredIds;
  readonly #shapes = new ShapeColumns();
  readonly #extras = new ExtraColumns();
  readonly #traceHigh = int64Column();
  readonly #traceLow = int64Column();
  readonly #spanId = int64Column();
  readonly #shape = int64Column();
  readonly #extra = int64Column();
  readonly #startTime = int64Column();
  readonly #endTime = int64Column();
  readonly #duration = float64Column();
  readonly #rowsProduced = float64Column();
  readonly #executionMicros = float64Column();
  readonly #fixed = [
    this.#traceHigh, this.#traceLow, this.#spanId, this.#shape, this.#extra, this.#startTime, this.#endTime,
    this.#duration, this.#rowsProduced, this.#executionMicros,
  ];
  #capacity = INITIAL_ROWS;
  #rows = 0;
  #bytes = 0;
  /** The ids of the row being written that are kept as text (see `#startRow`). */
  #traceText: string | undefined;
  #spanText: string | undefined;

  /** `ids`: shared by every batch of a writer (a shape's id holds from batch to batch). */
  constructor(ids: StoredIds = new StoredIds()) {
    this.#ids = ids;
  }

  get rows(): number {
    return this.#rows;
  }

  /** Roughly the bytes held (the text of the rows), to bound the buffer. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Appends a task's row (not a query's; label names are repaired if need be). */
  append(row: TaskRow): void {
    let shape = this.#ids.taskShape(row.task, row.input);
    if (shape === 0) {
      shape = this.#ids.addShape();
      this.#shapes.add(shape, row.task, row.input, undefined);
      this.#bytes += 64 + row.task.length + row.input.length;
    }
    const at = this.#startRow(row.traceId, false, row.spanId, shape, row.startTime, row.endTime, row.executionDurationMs);
    this.#writeExtras(at, row.startTime, { traceId: this.#traceText, spanId: this.#spanText, parentSpanId: row.parentSpanId, capturedOutput: row.capturedOutput, errorMessage: row.errorMessage, labels: row.labels });
    this.#rowsProduced.values[at] = 0;
    this.#executionMicros.values[at] = 0;
    this.#rows += 1;
  }

  /** Appends a query's row, with no row or labels object built for it first (see `writeSqlQueryRow`). */
  appendQuery(head: QueryHead, labels: QueryLabels): void {
    let shape = this.#ids.queryShape(head.input, labels);
    if (shape === 0) {
      shape = this.#ids.addShape();
      this.#shapes.add(shape, 'sql_query', head.input, labels);
      this.#bytes += 128 + head.input.length;
    }
    const at = this.#startRow(head.traceId, true, undefined, shape, head.startTime, head.endTime, head.executionDurationMs);
    if (this.#traceText !== undefined || head.capturedOutput !== undefined || head.errorMessage !== undefined) {
      this.#writeExtras(at, head.startTime, { traceId: this.#traceText, spanId: undefined, parentSpanId: undefined, capturedOutput: head.capturedOutput, errorMessage: head.errorMessage, labels: undefined });
    } else {
      writeInt64(this.#extra.values, at, 0);
    }
    this.#rowsProduced.values[at] = labels.rowsProduced;
    this.#executionMicros.values[at] = Number.isFinite(labels.executionMs) ? Math.round(labels.executionMs * 1000) : 0;
    this.#rows += 1;
  }

  /** The batch's new shapes, its extras and its rows (views of these columns' memory: valid until `clear()`). */
  batches(): StoredBatches {
    const length = this.#rows;
    const uint64 = new Uint64();
    const int64 = new Int64();
    const float64 = new Float64();
    const rows = recordBatchOf(ROWS_SCHEMA, length, [
      this.#traceHigh.data(uint64, length), this.#traceLow.data(uint64, length), this.#spanId.data(uint64, length),
      this.#shape.data(int64, length), this.#extra.data(int64, length),
      this.#startTime.data(new TimestampMicrosecond(), length), this.#endTime.data(new TimestampMicrosecond(), length),
      this.#duration.data(float64, length), this.#rowsProduced.data(float64, length), this.#executionMicros.data(float64, length),
    ]);
    return { shapes: this.#shapes.batch(), extras: this.#extras.batch(), rows };
  }

  clear(): void {
    this.#shapes.clear();
    this.#extras.clear();
    this.#rows = 0;
    this.#bytes = 0;
  }

  /**
   * Writes the columns every row has and returns the row's index. Ids not in the usual form
   * (32 or 16 lowercase hex digits, or a query's UUID) are left in `#traceText` / `#spanText`
   * for the row's extras, their words zero. `spanId` undefined: a new random one (no string is
   * made for it).
   */
  #startRow(traceId: string, traceIdIsUuid: boolean, spanId: string | undefined, shape: number, startTime: Date, endTime: Date, durationMs: number): number {
    const row = this.#rows;
    if (row + 1 > this.#capacity) this.#grow(row + 1);
    this.#traceText = undefined;
    if (!writeTraceWords(traceId, this.#traceHigh.values, this.#traceLow.values, row, traceIdIsUuid)) {
      this.#traceText = traceIdIsUuid ? traceId.replaceAll('-', '') : traceId;
      writeInt64(this.#traceHigh.values, row, 0);
      writeInt64(this.#traceLow.values, row, 0);
    }
    this.#spanText = undefined;
    if (spanId === undefined) {
      writeRandomSpanWords(this.#spanId.values, row);
    } else if (!writeSpanWords(spanId, this.#spanId.values, row)) {
      this.#spanText = spanId;
      writeInt64(this.#spanId.values, row, 0);
    }
    writeInt64(this.#shape.values, row, shape);
    writeInt64(this.#startTime.values, row, startTime.getTime() * 1000);
    writeInt64(this.#endTime.values, row, endTime.getTime() * 1000);
    this.#duration.values[row] = Number.isFinite(durationMs) ? durationMs : 0;
    this.#bytes += 80;
    return row;
  }

  #writeExtras(row: number, startTime: Date, extras: RowExtras): void {
    const id = this.#ids.nextExtra();
    writeInt64(this.#extra.values, row, id);
    this.#bytes += 64 + this.#extras.add(id, startTime.getTime() * 1000, extras);
  }

  #grow(rows: number): void {
    const capacity = Math.max(rows, this.#capacity * 2);
    for (const column of this.#fixed) column.ensure(capacity);
    this.#capacity = capacity;
  }
}
