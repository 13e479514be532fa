import { XdbcDataType as X, XdbcDatetimeSubcode as Subcode, Searchable } from '../generated/arrow/flight/protocol/sql/flight_sql_pb.js';

/** One row of CommandGetXdbcTypeInfo (column names as the result schema spells them). */
export interface XdbcTypeRow {
  type_name: string;
  data_type: number;
  column_size: number | null;
  literal_prefix: string | null;
  literal_suffix: string | null;
  create_params: string[] | null;
  nullable: number;
  case_sensitive: boolean;
  searchable: number;
  unsigned_attribute: boolean | null;
  fixed_prec_scale: boolean;
  auto_increment: boolean | null;
  local_type_name: string | null;
  minimum_scale: number | null;
  maximum_scale: number | null;
  sql_data_type: number;
  datetime_subcode: number | null;
  num_prec_radix: number | null;
  interval_precision: number | null;
}

const NULLABLE = 1; // Nullable.NULLABILITY_NULLABLE

function numeric(type_name: string, data_type: number, column_size: number, radix: 2 | 10, unsigned: boolean): XdbcTypeRow {
  return {
    type_name, data_type, column_size, literal_prefix: null, literal_suffix: null, create_params: null, nullable: NULLABLE,
    case_sensitive: false, searchable: Searchable.BASIC, unsigned_attribute: unsigned, fixed_prec_scale: false,
    auto_increment: false, local_type_name: type_name, minimum_scale: radix === 10 ? 0 : null, maximum_scale: radix === 10 ? 0 : null,
    sql_data_type: data_type, datetime_subcode: null, num_prec_radix: radix, interval_precision: null,
  };
}

function temporal(type_name: string, data_type: number, column_size: number, sqlType: number, subcode: number | null, prefix: string): XdbcTypeRow {
  return {
    type_name, data_type, column_size, literal_prefix: prefix, literal_suffix: "'", create_params: null, nullable: NULLABLE,
    case_sensitive: false, searchable: Searchable.BASIC, unsigned_attribute: null, fixed_prec_scale: false,
    auto_increment: null, local_type_name: type_name, minimum_scale: null, maximum_scale: null,
    sql_data_type: sqlType, datetime_subcode: subcode, num_prec_radix: null, interval_precision: null,
  };
}

/** DuckDB's types in the JDBC/ODBC vocabulary, ordered by data_type then type_name as the spec asks. */
export const XDBC_TYPES: readonly XdbcTypeRow[] = [
  numeric('BOOLEAN', X.XDBC_BIT, 1, 10, false),
  numeric('TINYINT', X.XDBC_TINYINT, 3, 10, false),
  numeric('UTINYINT', X.XDBC_TINYINT, 3, 10, true),
  numeric('BIGINT', X.XDBC_BIGINT, 19, 10, false),
  numeric('UBIGINT', X.XDBC_BIGINT, 20, 10, true),
  {
    ...numeric('BLOB', X.XDBC_VARBINARY, 0, 10, false),
    column_size: null, unsigned_attribute: null, auto_increment: null, minimum_scale: null, maximum_scale: null, num_prec_radix: null, searchable: Searchable.NONE,
  },
  {
    ...numeric('HUGEINT', X.XDBC_NUMERIC, 39, 10, false),
  },
  {
    ...numeric('DECIMAL', X.XDBC_DECIMAL, 38, 10, false),
    create_params: ['precision', 'scale'], maximum_scale: 38,
  },
  numeric('INTEGER', X.XDBC_INTEGER, 10, 10, false),
  numeric('UINTEGER', X.XDBC_INTEGER, 10, 10, true),
  numeric('SMALLINT', X.XDBC_SMALLINT, 5, 10, false),
  numeric('USMALLINT', X.XDBC_SMALLINT, 5, 10, true),
  numeric('FLOAT', X.XDBC_REAL, 24, 2, false),
  numeric('DOUBLE', X.XDBC_DOUBLE, 53, 2, false),
  { ...temporal('INTERVAL', X.XDBC_INTERVAL, 0, X.XDBC_INTERVAL, null, "INTERVAL '"), column_size: null },
  {
    type_name: 'VARCHAR', data_type: X.XDBC_VARCHAR, column_size: null, literal_prefix: "'", literal_suffix: "'", create_params: null,
    nullable: NULLABLE, case_sensitive: true, searchable: Searchable.FULL, unsigned_attribute: null, fixed_prec_scale: false,
    auto_increment: null, local_type_name: 'VARCHAR', minimum_scale: null, maximum_scale: null, sql_data_type: X.XDBC_VARCHAR,
    datetime_subcode: null, num_prec_radix: null, interval_precision: null,
  },
  temporal('DATE', X.XDBC_DATE, 10, X.XDBC_DATETIME, Subcode.XDBC_SUBCODE_DATE, "DATE '"),
  temporal('TIME', X.XDBC_TIME, 15, X.XDBC_DATETIME, Subcode.XDBC_SUBCODE_TIME, "TIME '"),
  temporal('TIMESTAMP', X.XDBC_TIMESTAMP, 26, X.XDBC_DATETIME, Subcode.XDBC_SUBCODE_TIMESTAMP, "TIMESTAMP '"),
  temporal('TIMESTAMP WITH TIME ZONE', X.XDBC_TIMESTAMP, 32, X.XDBC_DATETIME, Subcode.XDBC_SUBCODE_TIMESTAMP_WITH_TIMEZONE, "TIMESTAMPTZ '"),
].sort((a, b) => a.data_type - b.data_type || a.type_name.localeCompare(b.type_name));
