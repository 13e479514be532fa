/**
 * Arrow batches → an aligned text table, Spice's answer to `Accept: text/plain` (Arrow's
 * pretty printer):
 *
 * ```
 * +----+-------+
 * | id | label |
 * +----+-------+
 * | 1  | one   |
 * +----+-------+
 * ```
 *
 * Cells are the values as CSV writes them (so every type reads as in CSV and JSON), NULL and
 * the empty string as an empty cell, a line break inside a value as `\n`. Widths need every
 * row, so the table is built whole before its first byte: a human-sized format, refused past
 * MAX_TABLE_BYTES of cell text with RESULT_TOO_LARGE_FOR_TABLE (JSON and CSV stream any size).
 */
import { QuarryError } from '../../errors/quarry-error.js';
import { ChunkedOutput, DEFAULT_CHUNK_BYTES } from './chunked-output.js';
import { CsvRowWriter } from './csv.js';
import type { EncoderInput } from './types.js';

/** Cell text a table may hold in all (16 MiB). */
export const MAX_TABLE_BYTES = 16 * 1024 * 1024;

export async function* encodeTable(input: EncoderInput): AsyncGenerator<Buffer, void, undefined> {
  const names = input.schema.fields.map((field) => cellText(field.name));
  const writer = new CsvRowWriter(input.schema);
  const output = new ChunkedOutput(DEFAULT_CHUNK_BYTES);
  const rows: string[][] = [];
  let bytes = 0;
  for await (const batch of input.batches) {
    writer.writeBatch(batch, output);
    const text = Buffer.concat(output.take(true)).toString('utf8');
    bytes += text.length;
    if (bytes > MAX_TABLE_BYTES) {
      throw new QuarryError(
        'RESULT_TOO_LARGE_FOR_TABLE',
        `the result is over ${MAX_TABLE_BYTES / 1024 / 1024} MiB of text, too large for a text/plain table (it is built whole to align its columns); ask for application/json or text/csv, which stream any size, or add a LIMIT`,
      );
    }
    for (const record of csvRecords(text)) rows.push(record.map(cellText));
  }
  yield Buffer.from(renderTable(names, rows), 'utf8');
}

/** The table's text: borders, the header, the rows; every line ends with `\n`. */
export function renderTable(names: readonly string[], rows: readonly string[][]): string {
  if (names.length === 0) return '++\n++\n';
  const widths = names.map((name, column) => rows.reduce((widest, row) => Math.max(widest, displayWidth(row[column] ?? '')), displayWidth(name)));
  const border = `+${widths.map((width) => '-'.repeat(width + 2)).join('+')}+\n`;
  const line = (cells: readonly string[]) => `|${cells.map((cell, column) => ` ${cell}${' '.repeat(widths[column]! - displayWidth(cell))} `).join('|')}|\n`;
  return border + line(names) + border + rows.map(line).join('') + border;
}

/** Characters as a terminal lays them out: one column each (code points, not UTF-16 units). */
function displayWidth(text: string): number {
  let width = 0;
  for (const _ of text) width++;
  return width;
}

function cellText(value: string): string {
  return value.replace(/\r\n|\r|\n/g, '\\n');
}

/** The records of RFC 4180 text as CsvRowWriter writes it (CRLF ends, `"` quoting with `""`). */
function csvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let index = 0;
  while (index < text.length) {
    const character = text[index]!;
    if (character === '"' && field === '') {
      // A quoted field: up to the lone quote that closes it.
      index++;
      for (;;) {
        const quote = text.indexOf('"', index);
        if (text[quote + 1] === '"') {
          field += text.slice(index, quote + 1);
          index = quote + 2;
        } else {
          field += text.slice(index, quote);
          index = quote + 1;
          break;
        }
      }
    } else if (character === ',') {
      record.push(field);
      field = '';
      index++;
    } else if (character === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 2;
    } else {
      const next = text.slice(index).search(/[",\r]/);
      const end = next === -1 ? text.length : index + Math.max(next, 1);
      field += text.slice(index, end);
      index = end;
    }
  }
  return records;
}
