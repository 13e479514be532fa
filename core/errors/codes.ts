/**
 * Every user-visible error of the core, in one table: a stable code, the HTTP status and
 * gRPC status it maps to, and a one-line description used by docs/errors.md.
 * Plugins add their own codes with `defineErrorCodes` (see plugin docs); a test checks
 * that every code registered here is documented.
 */
export const GRPC = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export interface ErrorCodeSpec {
  /** HTTP status answered by the HTTP door. */
  http: number;
  /** gRPC status answered by the Flight door. */
  grpc: number;
  /** What the code means, for docs/errors.md. */
  description: string;
}

const coreCodes = {
  // Start-up: manifest, secrets, plugins.
  MANIFEST_NOT_FOUND: { http: 500, grpc: GRPC.INTERNAL, description: 'The manifest path does not exist, or a directory holds neither quarry.yaml nor spicepod.yaml.' },
  MANIFEST_PARSE_ERROR: { http: 500, grpc: GRPC.INTERNAL, description: 'The manifest is not valid YAML.' },
  MANIFEST_INVALID: { http: 500, grpc: GRPC.INTERNAL, description: 'The manifest does not match the schema; every problem is listed with its path.' },
  SECRET_NOT_FOUND: { http: 500, grpc: GRPC.INTERNAL, description: 'A ${ secrets:NAME } or ${ env:NAME } reference names a secret no store holds.' },
  SECRET_REFERENCE_INVALID: { http: 500, grpc: GRPC.INTERNAL, description: 'A manifest value holds text that starts like a secret reference (`${`) but is not a valid `${ store:NAME }`; the message names the path.' },
  SECRET_STORE_FAILED: { http: 500, grpc: GRPC.INTERNAL, description: 'A secret store could not be read (unreadable file or directory, unknown store kind).' },
  PLUGIN_DUPLICATE: { http: 500, grpc: GRPC.INTERNAL, description: 'Two plugins share one name.' },
  PLUGIN_DEPENDENCY_MISSING: { http: 500, grpc: GRPC.INTERNAL, description: 'A plugin depends on a plugin that is not loaded (missing or disabled).' },
  PLUGIN_LOAD_FAILED: { http: 500, grpc: GRPC.INTERNAL, description: 'A user plugin module could not be imported or does not export a plugin.' },
  PLUGIN_API_MISMATCH: { http: 500, grpc: GRPC.INTERNAL, description: 'A user plugin declares a pluginApiVersion other than the one this runtime serves; rebuild it against the installed quarry.' },
  PLUGIN_UNKNOWN: { http: 500, grpc: GRPC.INTERNAL, description: 'The manifest names a built-in plugin that does not exist.' },
  PLUGIN_FAILED: { http: 500, grpc: GRPC.INTERNAL, description: 'A plugin threw while applying or inside a hook; the message names the plugin and the hook.' },
  LISTENER_FAILED: { http: 500, grpc: GRPC.INTERNAL, description: 'A listener could not bind its address (in use, bad address).' },
  ENGINE_START_FAILED: { http: 500, grpc: GRPC.INTERNAL, description: 'The SQL engine could not be created with the configured settings.' },

  // Requests.
  CACHE_CONTROL_INVALID: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'A Cache-Control request directive the caches read (max-age, max-stale, min-fresh) has a value that is not a whole number of seconds.' },
  CACHE_ONLY_IF_CACHED_MISS: { http: 504, grpc: GRPC.FAILED_PRECONDITION, description: 'The request said `Cache-Control: only-if-cached` and the cache (SQL results or search results) holds no usable entry for it; nothing was executed.' },
  SQL_EMPTY: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The request carried no SQL text.' },
  SQL_INVALID: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The SQL could not be parsed or bound (syntax error, unknown column or function).' },
  SQL_TOO_LONG: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The SQL text is longer than runtime.query.max_sql_length (default 1 MiB of characters).' },
  SQL_TOO_COMPLEX: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The statement is beyond the planning limits the runtime checks before the engine sees it (more than 4,097 queries combined with UNION/INTERSECT/EXCEPT, comments nested over 256 deep).' },
  SQL_MULTIPLE_STATEMENTS: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'A request may hold one SQL statement only.' },
  TABLE_NOT_FOUND: { http: 400, grpc: GRPC.NOT_FOUND, description: 'The SQL names a table that is not a dataset of this runtime.' },
  QUERY_FAILED: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The engine failed while executing the query (conversion error, division by zero, ...).' },
  QUERY_OUT_OF_MEMORY: { http: 507, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'The query exceeded runtime.query.memory_limit and could not spill.' },
  QUERY_CANCELLED: { http: 499, grpc: GRPC.CANCELLED, description: 'The query was cancelled (the client went away or the runtime is stopping).' },
  ACCESS_DENIED: { http: 403, grpc: GRPC.PERMISSION_DENIED, description: 'The SQL tried to read or write a file or setting user queries may not touch.' },
  STATEMENT_NOT_ALLOWED: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The statement is never user SQL (SET, PRAGMA, CALL, ATTACH, INSTALL/LOAD, CREATE SECRET, transactions, ...) or calls a function user SQL may not (logging, checkpoints, secrets, SQL in a value, ...); the message names it (docs/engine.md).' },
  WRITE_NOT_ALLOWED: { http: 403, grpc: GRPC.PERMISSION_DENIED, description: 'The statement writes, and writes are not allowed for this caller or dataset.' },
  BODY_EMPTY: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The request body is empty.' },
  BODY_TOO_LARGE: { http: 413, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'The request body is over the limit for its route.' },
  BODY_INVALID_UTF8: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The request body is not valid UTF-8.' },
  BODY_INVALID_JSON: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'A JSON request body could not be parsed or has the wrong shape.' },
  PARAMETERS_INVALID: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'Query parameters do not match the statement placeholders or have unsupported types.' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, grpc: GRPC.INVALID_ARGUMENT, description: 'The request Content-Type is not accepted by this route.' },
  INGEST_SCHEMA_MISMATCH: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'Ingested Arrow data does not fit the dataset: unknown columns or types that cannot be converted.' },
  DATASET_NOT_FOUND: { http: 404, grpc: GRPC.NOT_FOUND, description: 'No dataset of that name.' },
  DATASET_NOT_ACCELERATED: { http: 400, grpc: GRPC.FAILED_PRECONDITION, description: 'The operation needs an accelerated dataset.' },
  DATASET_LOAD_FAILED: { http: 500, grpc: GRPC.INTERNAL, description: 'A dataset could not be loaded or refreshed; the message gives the reason.' },
  DATASET_NOT_READY: { http: 503, grpc: GRPC.UNAVAILABLE, description: 'The query names a dataset that is not registered yet: its source has not given its columns (a database that is down, a cluster scheduler with no live executor yet), or the last attempt failed and is retried. The message names the dataset and what it waits for; `GET /v1/datasets` shows it `Initializing` (or `Error`) with `waiting_for`.' },
  DATASET_REFRESH_IN_PROGRESS: { http: 409, grpc: GRPC.ABORTED, description: 'A refresh of the dataset is already running.' },
  DATASET_REFRESH_INVALID: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'A refresh request or refresh setting is not valid for the dataset (unknown refresh_mode, append without time_column or primary_key, malformed refresh body).' },
  ENGINE_SETTING_INVALID: { http: 500, grpc: GRPC.INTERNAL, description: 'A `runtime.params.columnar_*` value cannot be applied to the engine (e.g. an optimizer rule name the engine does not know).' },
  DATASET_SOURCE_UNSUPPORTED: { http: 400, grpc: GRPC.FAILED_PRECONDITION, description: 'A dataset\'s `from:` names a scheme no connector in this deployment serves; the message lists the schemes that are served.' },
  DATASET_SOURCE_FAILED: { http: 502, grpc: GRPC.UNAVAILABLE, description: 'A dataset read live from its source (not accelerated) could not be read for this query; the message names the dataset and the source\'s error. Never an empty result.' },
  CONNECTOR_CONFLICT: { http: 500, grpc: GRPC.INTERNAL, description: 'Two plugins registered a connector for the same `from:` scheme.' },
  // The Flight SQL door.
  FLIGHT_COMMAND_INVALID: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'A Flight descriptor, ticket, action body or command could not be decoded (not a google.protobuf.Any, or its value does not match its type).' },
  FLIGHT_COMMAND_UNSUPPORTED: { http: 501, grpc: GRPC.UNIMPLEMENTED, description: 'The Flight method, command type or action is not supported by Quarry (e.g. DoExchange, Substrait plans, transactions).' },
  FLIGHT_HANDLE_NOT_FOUND: { http: 404, grpc: GRPC.NOT_FOUND, description: 'A statement ticket or prepared statement handle is unknown, closed, expired, or belongs to another caller.' },
  FLIGHT_RATE_LIMITED: { http: 429, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'Too many DoPut calls or bytes from this caller (runtime.flight.do_put_rate_limit_enabled); retry after the `retry-after` seconds.' },
  FLIGHT_MESSAGE_TOO_LARGE: { http: 413, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'A single row (or dictionary) does not fit in runtime.flight.max_message_size.' },
  RESULT_TOO_LARGE_FOR_TABLE: { http: 413, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'A result asked for as a text/plain table is over 16 MiB of text; tables are built whole to align their columns, while JSON and CSV stream any size.' },
  RESULT_VALUE_TOO_LARGE: { http: 413, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'A string or blob of the result is longer than runtime.query.max_value_size (default 64 MiB); nothing of the result after it is sent.' },
  FLIGHT_UNAUTHENTICATED: { http: 401, grpc: GRPC.UNAUTHENTICATED, description: 'The Flight Handshake carried a malformed `authorization` header (expected `Basic base64(user:password)` or `Bearer <token>`).' },
  ROUTE_NOT_FOUND: { http: 404, grpc: GRPC.UNIMPLEMENTED, description: 'No such endpoint.' },
  REQUEST_INVALID: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'The HTTP request could not be read: a URL that is not valid percent-encoding, a malformed request line or header.' },
  HEADERS_TOO_LARGE: { http: 431, grpc: GRPC.INVALID_ARGUMENT, description: 'The HTTP request headers are over 16 KiB.' },
  METHOD_NOT_ALLOWED: { http: 405, grpc: GRPC.UNIMPLEMENTED, description: 'The endpoint exists but not for this method.' },
  RUNTIME_SHUTTING_DOWN: { http: 503, grpc: GRPC.UNAVAILABLE, description: 'The runtime is draining and takes no new work.' },
  // Upstream requests of connectors (core/outbound).
  UPSTREAM_REQUEST_FAILED: { http: 502, grpc: GRPC.UNAVAILABLE, description: 'An upstream source answered an error status (after the configured retries), or could not be reached; the message names the request and the status.' },
  UPSTREAM_TIMEOUT: { http: 504, grpc: GRPC.DEADLINE_EXCEEDED, description: 'An upstream request did not complete within its client_timeout (after the configured retries).' },
  UPSTREAM_RESPONSE_TOO_LARGE: { http: 502, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'An upstream response was larger than the limit the client reads; it was not read further.' },
  RUNTIME_NOT_READY: { http: 503, grpc: GRPC.UNAVAILABLE, description: 'The runtime has not finished starting.' },
  INTERNAL: { http: 500, grpc: GRPC.INTERNAL, description: 'An unexpected failure inside the runtime; the log has details.' },
} satisfies Record<string, ErrorCodeSpec>;

export type CoreErrorCode = keyof typeof coreCodes;

const registry = new Map<string, ErrorCodeSpec>(Object.entries(coreCodes));

/** Registers a plugin's error codes. A code may be registered once, with one meaning. */
export function defineErrorCodes(codes: Record<string, ErrorCodeSpec>): void {
  for (const [code, spec] of Object.entries(codes)) {
    const existing = registry.get(code);
    if (existing && (existing.http !== spec.http || existing.grpc !== spec.grpc)) {
      throw new Error(`error code ${code} is already defined with another status`);
    }
    registry.set(code, spec);
  }
}

/** Whether a code is in the table (the core's or a plugin's). */
export function isRegisteredErrorCode(code: string): boolean {
  return registry.has(code);
}

export function errorCodeSpec(code: string): ErrorCodeSpec {
  return registry.get(code) ?? coreCodes.INTERNAL;
}

/** All registered codes, sorted: what docs/errors.md must document. */
export function registeredErrorCodes(): Array<[string, ErrorCodeSpec]> {
  return [...registry.entries()].sort(([a], [b]) => a.localeCompare(b));
}
