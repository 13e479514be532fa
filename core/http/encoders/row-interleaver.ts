/**
 * Assembles rows from per-column rendered bytes: for each row, a fixed prefix per column
 * (`{"name":` / `,"name":` in JSON, `,` in CSV), the column's value bytes, then a row
 * suffix. This copy is the encoders' hottest loop, so it moves 4 bytes at a time through
 * DataViews and deliberately over-copies up to 3 bytes past each range: the next write
 * overwrites them, and every buffer involved keeps 4 bytes of slack at its end.
 */
import type { ChunkedOutput } from './chunked-output.js';
import type { RenderedColumn } from './render/byte-writer.js';

const SLACK = 4;

export class RowInterleaver {
  private readonly prefixes: Buffer[];
  private readonly prefixViews: DataView[];
  private readonly fixedBytes: number;

  /**
   * @param prefixes bytes written before each column's value.
   * @param rowSuffix bytes after the last column (`}` or CRLF).
   * @param rowSeparator bytes between two rows (`,` in a JSON array), or none.
   */
  constructor(prefixes: readonly Uint8Array[], private readonly rowSuffix: Uint8Array, private readonly rowSeparator: Uint8Array | null) {
    this.prefixes = prefixes.map((prefix) => {
      const padded = Buffer.alloc(prefix.length + SLACK);
      padded.set(prefix);
      return padded;
    });
    this.prefixViews = this.prefixes.map((prefix) => new DataView(prefix.buffer, prefix.byteOffset, prefix.byteLength));
    this.fixedBytes = prefixes.reduce((sum, prefix) => sum + prefix.length, 0) + rowSuffix.length + (rowSeparator?.length ?? 0);
  }

  /**
   * Writes `rowCount` rows from `columns` (rendered for this batch) into `output`.
   * `firstRow` says whether the very first row of the whole output is among them (no
   * separator before it).
   */
  writeRows(columns: readonly RenderedColumn[], rowCount: number, output: ChunkedOutput, firstRow: boolean): void {
    const columnCount = columns.length;
    const ends = columns.map((column) => column.ends);
    const views = columns.map((column) => {
      const bytes = column.writer.ensure(SLACK);
      return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    });
    const prefixViews = this.prefixViews;
    const prefixLengths = this.prefixes.map((prefix) => prefix.length - SLACK);
    const starts = new Int32Array(columnCount);
    const suffix = this.rowSuffix;
    const separator = this.rowSeparator;
    // Reserving once for all rows spares a size computation and a check per row; rows
    // may then straddle the output's chunk boundaries, which HTTP does not care about.
    let total = this.fixedBytes * rowCount + SLACK;
    for (const column of columns) total += column.writer.position;
    const reserveEachRow = total > WHOLE_RESERVATION_LIMIT;
    let chunk: Buffer | null = null;
    let view: DataView | null = null;
    if (!reserveEachRow) {
      chunk = output.reserve(total);
      view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }

    for (let r = 0; r < rowCount; r++) {
      if (reserveEachRow) {
        let rowBytes = this.fixedBytes + SLACK;
        for (let c = 0; c < columnCount; c++) rowBytes += ends[c]![r]! - starts[c]!;
        const reserved = output.reserve(rowBytes);
        if (reserved !== chunk) {
          chunk = reserved;
          view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        }
      }
      let position = output.position;
      if (separator !== null && !(firstRow && r === 0)) {
        for (let k = 0; k < separator.length; k++) chunk![position++] = separator[k]!;
      }
      for (let c = 0; c < columnCount; c++) {
        const prefixView = prefixViews[c]!;
        const prefixLength = prefixLengths[c]!;
        for (let k = 0; k < prefixLength; k += 4) view!.setUint32(position + k, prefixView.getUint32(k));
        position += prefixLength;
        const source = views[c]!;
        const start = starts[c]!;
        const end = ends[c]![r]!;
        for (let k = start; k < end; k += 4) view!.setUint32(position + k - start, source.getUint32(k));
        position += end - start;
        starts[c] = end;
      }
      for (let k = 0; k < suffix.length; k++) chunk![position++] = suffix[k]!;
      output.position = position;
    }
  }
}

/** Above this many bytes per call, rows are reserved one by one instead of all at once. */
const WHOLE_RESERVATION_LIMIT = 4 * 1024 * 1024;
