/**
 * Arrow batches → RFC 4180 CSV: a header row of column names, CRLF line ends, fields
 * quoted only when they contain `,` `"` CR or LF (quotes doubled), NULL as an empty field
 * and the empty string as `""`. Values render as in JSON without the JSON quoting; lists,
 * structs, maps and intervals are their JSON text in one quoted field. See
 * docs/json-encoding.md.
 */
import type { Schema } from 'apache-arrow';
import { BatchTextWriter } from './batch-text-writer.js';
import { ChunkedOutput, DEFAULT_CHUNK_BYTES } from './chunked-output.js';
import { maxCsvFieldBytes, writeCsvField } from './render/string-text.js';
import { RowInterleaver } from './row-interleaver.js';
import type { EncoderInput, TextEncoderOptions } from './types.js';

export interface CsvEncoderOptions extends TextEncoderOptions {
  /** Write the header row of column names (default true). */
  readonly header?: boolean;
}

const CRLF = Buffer.from('\r\n');
const COMMA = Buffer.from(',');

/** The header line: names as CSV fields. */
export function csvHeader(schema: Schema): Buffer {
  const names = schema.fields.map((field) => {
    const name = Buffer.from(field.name, 'utf8');
    const out = Buffer.allocUnsafe(maxCsvFieldBytes(name.length));
    return out.subarray(0, writeCsvField(out, 0, name, 0, name.length));
  });
  const parts: Buffer[] = [];
  names.forEach((name, i) => parts.push(...(i > 0 ? [COMMA, name] : [name])));
  return Buffer.concat([...parts, CRLF]);
}

/** Renders batches of one schema to CSV records (no header). */
export class CsvRowWriter extends BatchTextWriter {
  constructor(schema: Schema) {
    super(schema, 'csv', new RowInterleaver(schema.fields.map((_, i) => (i === 0 ? Buffer.alloc(0) : COMMA)), CRLF, null));
  }
}

/** Encodes the stream as CSV, yielding each full `chunkBytes` of output as batches arrive (as `encodeJson`). */
export async function* encodeCsv(input: EncoderInput, options: CsvEncoderOptions = {}): AsyncGenerator<Buffer, void, undefined> {
  const output = new ChunkedOutput(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const rows = new CsvRowWriter(input.schema);
  if (options.header ?? true) output.write(csvHeader(input.schema));
  for await (const batch of input.batches) {
    rows.writeBatch(batch, output);
    if (output.hasReady) yield* output.take();
  }
  yield* output.take(true);
}
