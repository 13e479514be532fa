/**
 * Result encoders: `{ schema, batches }` → an async iterable of Buffers for the HTTP layer
 * to write with back-pressure. Each starts producing output with the first batch.
 */
export { encodeJson, encodeNdjson, JsonRowWriter, jsonKeysFor } from './json.js';
export { encodeCsv, CsvRowWriter, csvHeader, type CsvEncoderOptions } from './csv.js';
export { encodeArrowStream, type ArrowIpcEncoderOptions } from './arrow-ipc.js';
export { encodeTable, renderTable, MAX_TABLE_BYTES } from './table.js';
export type { EncoderInput, TextEncoderOptions } from './types.js';

export const CONTENT_TYPE_JSON = 'application/json; charset=utf-8';
export const CONTENT_TYPE_CSV = 'text/csv; charset=utf-8; header=present';
export const CONTENT_TYPE_ARROW_STREAM = 'application/vnd.apache.arrow.stream';
