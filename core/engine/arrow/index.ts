/**
 * DuckDB results as Arrow record batches: the engine's only result representation.
 *
 * Typical use:
 * ```ts
 * const { schema, batches } = await openBatchStream(await prepared.stream());
 * for await (const batch of batches) ...
 * ```
 */
export { openBatchStream, streamRecordBatches, arrowSchemaFor, type ArrowBatchStream, type StreamOptions } from './record-batch-stream.js';
export {
  BatchAssembler,
  DEFAULT_TARGET_BYTES_PER_BATCH,
  DEFAULT_TARGET_ROWS_PER_BATCH,
  type BatchSizeOptions,
} from './chunk-to-arrow.js';
export {
  arrowFieldFor,
  arrowSchemaForColumns,
  arrowTypeFor,
  ARROW_EXTENSION_NAME_KEY,
  DUCKDB_TYPE_KEY,
  JSON_EXTENSION_NAME,
  WKB_EXTENSION_NAME,
} from './duckdb-to-arrow-type.js';
