import { SqlInfo, SqlSupportsConvert as Convert } from '../generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { ARROW_VERSION, QUARRY_VERSION } from '../server-version.js';

/** One CommandGetSqlInfo value, tagged with the union member it travels in. */
export type SqlInfoValue =
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'bigint'; readonly value: bigint }
  | { readonly kind: 'int32Bitmask'; readonly value: number }
  | { readonly kind: 'stringList'; readonly value: readonly string[] }
  | { readonly kind: 'int32ToInt32ListMap'; readonly value: ReadonlyMap<number, readonly number[]> };

export interface SqlInfoFacts {
  /** No dataset accepts writes (`access: read_write`). */
  readonly readOnly: boolean;
  /** CommandStatementIngest is available (the engine can append). */
  readonly bulkIngestion: boolean;
  /** Prepared statement idle timeout, ms. */
  readonly statementTimeoutMs: number;
  /** DuckDB's keywords (duckdb_keywords()). */
  readonly keywords: readonly string[];
}

const text = (value: string): SqlInfoValue => ({ kind: 'string', value });
const flag = (value: boolean): SqlInfoValue => ({ kind: 'bool', value });
const int32 = (value: number): SqlInfoValue => ({ kind: 'int32Bitmask', value });
const int64 = (value: number): SqlInfoValue => ({ kind: 'bigint', value: BigInt(value) });
const list = (value: readonly string[]): SqlInfoValue => ({ kind: 'stringList', value });
const bits = (...positions: number[]): number => positions.reduce((mask, position) => mask | (1 << position), 0);

// Function names DuckDB has, by the ODBC families clients ask about.
const NUMERIC_FUNCTIONS = ['abs', 'acos', 'asin', 'atan', 'atan2', 'cbrt', 'ceil', 'cos', 'cot', 'degrees', 'exp', 'floor', 'ln', 'log', 'log10', 'log2', 'mod', 'pi', 'pow', 'power', 'radians', 'random', 'round', 'sign', 'sin', 'sqrt', 'tan', 'trunc'];
const STRING_FUNCTIONS = ['ascii', 'chr', 'concat', 'concat_ws', 'contains', 'left', 'length', 'lower', 'lpad', 'ltrim', 'position', 'regexp_matches', 'regexp_replace', 'repeat', 'replace', 'reverse', 'right', 'rpad', 'rtrim', 'split_part', 'starts_with', 'strpos', 'substring', 'trim', 'upper'];
const SYSTEM_FUNCTIONS = ['coalesce', 'current_database', 'current_schema', 'ifnull', 'nullif', 'typeof', 'version'];
const DATETIME_FUNCTIONS = ['age', 'current_date', 'current_time', 'current_timestamp', 'date_add', 'date_diff', 'date_part', 'date_sub', 'date_trunc', 'dayname', 'epoch', 'epoch_ms', 'extract', 'last_day', 'make_date', 'make_timestamp', 'monthname', 'now', 'strftime', 'strptime', 'to_timestamp'];

const NUMERIC = [Convert.SQL_CONVERT_BIGINT, Convert.SQL_CONVERT_INTEGER, Convert.SQL_CONVERT_SMALLINT, Convert.SQL_CONVERT_TINYINT, Convert.SQL_CONVERT_DECIMAL, Convert.SQL_CONVERT_NUMERIC, Convert.SQL_CONVERT_FLOAT, Convert.SQL_CONVERT_REAL, Convert.SQL_CONVERT_BIT];
const CHARACTER = [Convert.SQL_CONVERT_CHAR, Convert.SQL_CONVERT_VARCHAR, Convert.SQL_CONVERT_LONGVARCHAR];
const BINARY = [Convert.SQL_CONVERT_BINARY, Convert.SQL_CONVERT_VARBINARY, Convert.SQL_CONVERT_LONGVARBINARY];

/** CAST conversions DuckDB performs, in the SqlSupportsConvert vocabulary. */
function supportedConversions(): Map<number, number[]> {
  const conversions = new Map<number, number[]>();
  for (const from of NUMERIC) conversions.set(from, [...NUMERIC, ...CHARACTER]);
  for (const from of CHARACTER) conversions.set(from, [...NUMERIC, ...CHARACTER, ...BINARY, Convert.SQL_CONVERT_DATE, Convert.SQL_CONVERT_TIME, Convert.SQL_CONVERT_TIMESTAMP]);
  for (const from of BINARY) conversions.set(from, [...BINARY, ...CHARACTER]);
  conversions.set(Convert.SQL_CONVERT_DATE, [Convert.SQL_CONVERT_DATE, Convert.SQL_CONVERT_TIMESTAMP, ...CHARACTER]);
  conversions.set(Convert.SQL_CONVERT_TIME, [Convert.SQL_CONVERT_TIME, ...CHARACTER]);
  conversions.set(Convert.SQL_CONVERT_TIMESTAMP, [Convert.SQL_CONVERT_DATE, Convert.SQL_CONVERT_TIME, Convert.SQL_CONVERT_TIMESTAMP, ...CHARACTER]);
  return conversions;
}

/**
 * What Quarry says about itself and its SQL (DuckDB's dialect) through CommandGetSqlInfo.
 * Reported honestly: no Flight SQL transactions, no DDL for users, forward-only results,
 * writes only into datasets declared `access: read_write`.
 */
export function sqlInfoValues(facts: SqlInfoFacts): Map<number, SqlInfoValue> {
  const values = new Map<number, SqlInfoValue>([
    [SqlInfo.FLIGHT_SQL_SERVER_NAME, text('Quarry')],
    [SqlInfo.FLIGHT_SQL_SERVER_VERSION, text(QUARRY_VERSION)],
    [SqlInfo.FLIGHT_SQL_SERVER_ARROW_VERSION, text(ARROW_VERSION)],
    [SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY, flag(facts.readOnly)],
    [SqlInfo.FLIGHT_SQL_SERVER_SQL, flag(true)],
    [SqlInfo.FLIGHT_SQL_SERVER_SUBSTRAIT, flag(false)],
    [SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION, int32(0)], // SQL_SUPPORTED_TRANSACTION_NONE
    [SqlInfo.FLIGHT_SQL_SERVER_CANCEL, flag(true)],
    [SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION, flag(facts.bulkIngestion)],
    [SqlInfo.FLIGHT_SQL_SERVER_INGEST_TRANSACTIONS_SUPPORTED, flag(false)],
    [SqlInfo.FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT, int32(facts.statementTimeoutMs)],
    [SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT, int32(0)],
    [SqlInfo.SQL_DDL_CATALOG, flag(false)],
    [SqlInfo.SQL_DDL_SCHEMA, flag(false)],
    [SqlInfo.SQL_DDL_TABLE, flag(false)],
    [SqlInfo.SQL_IDENTIFIER_CASE, int32(1)], // SQL_CASE_SENSITIVITY_CASE_INSENSITIVE
    [SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR, text('"')],
    [SqlInfo.SQL_QUOTED_IDENTIFIER_CASE, int32(1)], // DuckDB folds quoted identifiers too
    [SqlInfo.SQL_ALL_TABLES_ARE_SELECTABLE, flag(true)],
    [SqlInfo.SQL_NULL_ORDERING, int32(3)], // SQL_NULLS_SORTED_AT_END: DuckDB's default is NULLS LAST both ways
    [SqlInfo.SQL_KEYWORDS, list(facts.keywords)],
    [SqlInfo.SQL_NUMERIC_FUNCTIONS, list(NUMERIC_FUNCTIONS)],
    [SqlInfo.SQL_STRING_FUNCTIONS, list(STRING_FUNCTIONS)],
    [SqlInfo.SQL_SYSTEM_FUNCTIONS, list(SYSTEM_FUNCTIONS)],
    [SqlInfo.SQL_DATETIME_FUNCTIONS, list(DATETIME_FUNCTIONS)],
    [SqlInfo.SQL_SEARCH_STRING_ESCAPE, text('\\')],
    [SqlInfo.SQL_EXTRA_NAME_CHARACTERS, text('')],
    [SqlInfo.SQL_SUPPORTS_COLUMN_ALIASING, flag(true)],
    [SqlInfo.SQL_NULL_PLUS_NULL_IS_NULL, flag(true)],
    [SqlInfo.SQL_SUPPORTS_CONVERT, { kind: 'int32ToInt32ListMap', value: supportedConversions() }],
    [SqlInfo.SQL_SUPPORTS_TABLE_CORRELATION_NAMES, flag(true)],
    [SqlInfo.SQL_SUPPORTS_DIFFERENT_TABLE_CORRELATION_NAMES, flag(false)],
    [SqlInfo.SQL_SUPPORTS_EXPRESSIONS_IN_ORDER_BY, flag(true)],
    [SqlInfo.SQL_SUPPORTS_ORDER_BY_UNRELATED, flag(true)],
    [SqlInfo.SQL_SUPPORTED_GROUP_BY, int32(bits(0, 1))], // unrelated, beyond select
    [SqlInfo.SQL_SUPPORTS_LIKE_ESCAPE_CLAUSE, flag(true)],
    [SqlInfo.SQL_SUPPORTS_NON_NULLABLE_COLUMNS, flag(true)],
    [SqlInfo.SQL_SUPPORTED_GRAMMAR, int32(bits(0, 1))], // minimum, core
    [SqlInfo.SQL_ANSI92_SUPPORTED_LEVEL, int32(bits(0, 1))], // entry, intermediate
    [SqlInfo.SQL_SUPPORTS_INTEGRITY_ENHANCEMENT_FACILITY, flag(false)],
    [SqlInfo.SQL_OUTER_JOINS_SUPPORT_LEVEL, int32(2)], // SQL_FULL_OUTER_JOINS
    [SqlInfo.SQL_SCHEMA_TERM, text('schema')],
    [SqlInfo.SQL_PROCEDURE_TERM, text('procedure')],
    [SqlInfo.SQL_CATALOG_TERM, text('catalog')],
    [SqlInfo.SQL_CATALOG_AT_START, flag(true)],
    [SqlInfo.SQL_SCHEMAS_SUPPORTED_ACTIONS, int32(0)],
    [SqlInfo.SQL_CATALOGS_SUPPORTED_ACTIONS, int32(0)],
    [SqlInfo.SQL_SUPPORTED_POSITIONED_COMMANDS, int32(0)],
    [SqlInfo.SQL_SELECT_FOR_UPDATE_SUPPORTED, flag(false)],
    [SqlInfo.SQL_STORED_PROCEDURES_SUPPORTED, flag(false)],
    [SqlInfo.SQL_SUPPORTED_SUBQUERIES, int32(bits(0, 1, 2, 3))], // comparisons, exists, in, quantified
    [SqlInfo.SQL_CORRELATED_SUBQUERIES_SUPPORTED, flag(true)],
    [SqlInfo.SQL_SUPPORTED_UNIONS, int32(bits(0, 1))],
    [SqlInfo.SQL_DEFAULT_TRANSACTION_ISOLATION, int32(0)], // SQL_TRANSACTION_NONE: every statement commits alone
    [SqlInfo.SQL_TRANSACTIONS_SUPPORTED, flag(false)],
    [SqlInfo.SQL_SUPPORTED_TRANSACTIONS_ISOLATION_LEVELS, int32(bits(0))],
    [SqlInfo.SQL_DATA_DEFINITION_CAUSES_TRANSACTION_COMMIT, flag(false)],
    [SqlInfo.SQL_DATA_DEFINITIONS_IN_TRANSACTIONS_IGNORED, flag(false)],
    [SqlInfo.SQL_SUPPORTED_RESULT_SET_TYPES, int32(bits(1))], // forward only
    [SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_UNSPECIFIED, int32(0)],
    [SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_FORWARD_ONLY, int32(bits(1))], // read only
    [SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_SENSITIVE, int32(0)],
    [SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_SCROLL_INSENSITIVE, int32(0)],
    [SqlInfo.SQL_BATCH_UPDATES_SUPPORTED, flag(true)],
    [SqlInfo.SQL_SAVEPOINTS_SUPPORTED, flag(false)],
    [SqlInfo.SQL_NAMED_PARAMETERS_SUPPORTED, flag(false)],
    [SqlInfo.SQL_LOCATORS_UPDATE_COPY, flag(false)],
    [SqlInfo.SQL_STORED_FUNCTIONS_USING_CALL_SYNTAX_SUPPORTED, flag(false)],
  ]);
  // Limits DuckDB does not impose (0 = no limit or unknown, as the spec allows).
  for (const id of [
    SqlInfo.SQL_MAX_BINARY_LITERAL_LENGTH, SqlInfo.SQL_MAX_CHAR_LITERAL_LENGTH, SqlInfo.SQL_MAX_COLUMN_NAME_LENGTH,
    SqlInfo.SQL_MAX_COLUMNS_IN_GROUP_BY, SqlInfo.SQL_MAX_COLUMNS_IN_INDEX, SqlInfo.SQL_MAX_COLUMNS_IN_ORDER_BY,
    SqlInfo.SQL_MAX_COLUMNS_IN_SELECT, SqlInfo.SQL_MAX_COLUMNS_IN_TABLE, SqlInfo.SQL_MAX_CONNECTIONS,
    SqlInfo.SQL_MAX_CURSOR_NAME_LENGTH, SqlInfo.SQL_MAX_INDEX_LENGTH, SqlInfo.SQL_DB_SCHEMA_NAME_LENGTH,
    SqlInfo.SQL_MAX_PROCEDURE_NAME_LENGTH, SqlInfo.SQL_MAX_CATALOG_NAME_LENGTH, SqlInfo.SQL_MAX_ROW_SIZE,
    SqlInfo.SQL_MAX_STATEMENT_LENGTH, SqlInfo.SQL_MAX_STATEMENTS, SqlInfo.SQL_MAX_TABLE_NAME_LENGTH,
    SqlInfo.SQL_MAX_TABLES_IN_SELECT, SqlInfo.SQL_MAX_USERNAME_LENGTH,
  ]) values.set(id, int64(0));
  values.set(SqlInfo.SQL_MAX_ROW_SIZE_INCLUDES_BLOBS, flag(false));
  return values;
}
