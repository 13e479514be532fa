/**
 * Arrow field metadata Quarry writes on result columns. Kept apart from the DuckDB type
 * mapping so encoders and clients can read it without loading the DuckDB bindings.
 */

/** Field metadata key of Arrow extension types (canonical `arrow.json`, `geoarrow.wkb`). */
export const ARROW_EXTENSION_NAME_KEY = 'ARROW:extension:name';
/** Field metadata key holding the DuckDB type the column had (e.g. `UUID`, `TIME_TZ`). */
export const DUCKDB_TYPE_KEY = 'duckdb:type';
/** Extension name marking a Utf8 field whose values are JSON documents (DuckDB's JSON type). */
export const JSON_EXTENSION_NAME = 'arrow.json';
/** Extension name marking a Binary field holding well-known-binary geometries. */
export const WKB_EXTENSION_NAME = 'geoarrow.wkb';
