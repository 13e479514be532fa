/**
 * Arrow batches → a JSON array of row objects: `[{"a":1,"b":"x"},...]`, `[]` when empty.
 *
 * Column-at-a-time: each column of a batch is rendered to bytes by a type-specialised loop
 * (render/), then rows are assembled by copying each column's byte range after a
 * precomputed `"name":` key. No row objects and no per-value JS strings for the common
 * types. Value mapping: docs/json-encoding.md.
 */
import type { Schema } from 'apache-arrow';
import { BatchTextWriter, WriterPool } from './batch-text-writer.js';
import { ChunkedOutput, DEFAULT_CHUNK_BYTES } from './chunked-output.js';
import { RowInterleaver } from './row-interleaver.js';
import type { EncoderInput, TextEncoderOptions } from './types.js';

/**
 * Object keys of the columns: duplicate names get `:1`, `:2`… as node-api's
 * `deduplicatedColumnNames` does, since JSON parsers keep only one of equal keys.
 */
export function jsonKeysFor(schema: Schema): string[] {
  const seen = new Map<string, number>();
  return schema.fields.map((field) => {
    const count = (seen.get(field.name) ?? 0) + 1;
    seen.set(field.name, count);
    return count > 1 ? `${field.name}:${count - 1}` : field.name;
  });
}

/** Renders batches of one schema to JSON object rows, `,` between rows (a line break with `separator: '\n'`: NDJSON). */
export class JsonRowWriter extends BatchTextWriter {
  constructor(schema: Schema, separator = ',') {
    // `{"a":` before the first column, `,"b":` before the others; `{}` for no columns.
    const keys = jsonKeysFor(schema).map((key, i) => Buffer.from(`${i === 0 ? '{' : ','}${JSON.stringify(key)}:`, 'utf8'));
    super(schema, 'json', new RowInterleaver(keys, Buffer.from(keys.length === 0 ? '{}' : '}'), Buffer.from(separator)));
  }
}

/** The stream as NDJSON: one JSON object per row, each on its own line (nothing for no rows). */
export async function* encodeNdjson(input: EncoderInput, options: TextEncoderOptions = {}): AsyncGenerator<Buffer, void, undefined> {
  const output = new ChunkedOutput(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const rows = ndjsonWriters.take(input.schema);
  try {
    let any = false;
    for await (const batch of input.batches) {
      rows.writeBatch(batch, output);
      any ||= batch.numRows > 0;
      if (output.hasReady) yield* output.take();
    }
    if (any) output.write(NEWLINE);
    yield* output.take(true);
  } finally {
    ndjsonWriters.give(input.schema, rows);
  }
}

const jsonWriters = new WriterPool((schema) => new JsonRowWriter(schema));
const ndjsonWriters = new WriterPool((schema) => new JsonRowWriter(schema, '\n'));

const NEWLINE = Buffer.from('\n');

/**
 * Encodes the stream as one JSON array. After each batch, every full `chunkBytes` of
 * output is yielded (a 65k-row batch makes many); the remainder waits for more rows or
 * the end, so small results go out as one Buffer.
 */
export async function* encodeJson(input: EncoderInput, options: TextEncoderOptions = {}): AsyncGenerator<Buffer, void, undefined> {
  const output = new ChunkedOutput(options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const rows = jsonWriters.take(input.schema);
  try {
    output.write(OPEN);
    for await (const batch of input.batches) {
      rows.writeBatch(batch, output);
      if (output.hasReady) yield* output.take();
    }
    output.write(CLOSE);
    yield* output.take(true);
  } finally {
    jsonWriters.give(input.schema, rows);
  }
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
