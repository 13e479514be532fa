import type { RecordBatch, Schema } from 'apache-arrow';
import type { ChunkedOutput } from './chunked-output.js';
import { newRenderedColumn, prepareRenderedColumn, type RenderedColumn } from './render/byte-writer.js';
import { createRenderer } from './render/create-renderer.js';
import type { ColumnRenderer, Dialect } from './render/renderer.js';
import type { RowInterleaver } from './row-interleaver.js';

/**
 * Rows rendered per step. A batch is rendered column by column in slices of this many
 * rows, then interleaved: the rendered slices (a few hundred KiB) stay in the CPU cache
 * between rendering and copying, which a whole 65k-row batch (~10 MiB of text) does not.
 */
export const ROWS_PER_SLICE = 4096;

/** Renders the batches of one schema as text rows: column renderers + a row interleaver. */
export class BatchTextWriter {
  private readonly renderers: ColumnRenderer[];
  private readonly columns: RenderedColumn[];
  private rowsWritten = 0;

  constructor(schema: Schema, dialect: Dialect, private readonly interleaver: RowInterleaver) {
    this.renderers = schema.fields.map((field) => createRenderer(field, dialect));
    this.columns = schema.fields.map(() => newRenderedColumn());
  }

  /** Starts a new output: its first row gets no separator before it. */
  restart(): void {
    this.rowsWritten = 0;
  }

  /** Bytes of the rendering buffers it holds (they grow to a slice of the largest batch). */
  get heldBytes(): number {
    let bytes = 0;
    for (const column of this.columns) bytes += column.writer.bytes.byteLength + column.ends.byteLength;
    return bytes;
  }

  /** Appends the batch's rows to `output`. */
  writeBatch(batch: RecordBatch, output: ChunkedOutput): void {
    const rowCount = batch.numRows;
    const children = batch.data.children;
    for (let start = 0; start < rowCount; start += ROWS_PER_SLICE) {
      const count = Math.min(ROWS_PER_SLICE, rowCount - start);
      for (let c = 0; c < this.columns.length; c++) {
        const column = this.columns[c]!;
        const child = children[c]!;
        prepareRenderedColumn(column, count);
        this.renderers[c]!(count === child.length ? child : child.slice(start, count), column.writer, column.ends);
      }
      this.interleaver.writeRows(this.columns, count, output, this.rowsWritten === 0);
      this.rowsWritten += count;
    }
  }
}

/**
 * Writers of a schema left over from earlier answers, for the next answer of that schema (a
 * kept statement's results share one Schema object): making one (a renderer, buffers and a key
 * per column) was ~50 µs of a ~1 ms point query's JS here. Only small writers are kept, a few
 * per schema; a schema nobody references takes its writers with it.
 */
export class WriterPool<Writer extends BatchTextWriter> {
  readonly #idle = new WeakMap<Schema, Writer[]>();

  constructor(private readonly make: (schema: Schema) => Writer) {}

  take(schema: Schema): Writer {
    const writer = this.#idle.get(schema)?.pop();
    if (writer === undefined) return this.make(schema);
    writer.restart();
    return writer;
  }

  /** Hands a writer back once its answer is written (or abandoned: `take` restarts it). */
  give(schema: Schema, writer: Writer): void {
    if (writer.heldBytes > MAX_POOLED_WRITER_BYTES) return;
    let idle = this.#idle.get(schema);
    if (idle === undefined) this.#idle.set(schema, (idle = []));
    if (idle.length < MAX_POOLED_WRITERS) idle.push(writer);
  }
}

/** Writers kept per schema: as many as answers of one schema are usually encoded at once. */
const MAX_POOLED_WRITERS = 4;
/** A writer that grew past this for a large answer is left to the collector. */
const MAX_POOLED_WRITER_BYTES = 64 * 1024;
