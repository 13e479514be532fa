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
