import { Binary, Bool, DenseUnion, Field, Int32, Int64, List, Map_, Schema, Struct, Uint32, Uint8, Utf8 } from 'apache-arrow';

/**
 * The result schemas of the Flight SQL metadata commands, field for field (names, types,
 * nullability, child names) as the reference implementation builds them: some clients
 * (ADBC's C++ driver) compare the schema they receive with their own copy for equality.
 */
const utf8 = (name: string, nullable = true) => new Field(name, new Utf8(), nullable);
const int32 = (name: string, nullable = true) => new Field(name, new Int32(), nullable);

export const CATALOGS_SCHEMA = new Schema([utf8('catalog_name', false)]);

export const DB_SCHEMAS_SCHEMA = new Schema([utf8('catalog_name'), utf8('db_schema_name', false)]);

const tableFields = [utf8('catalog_name'), utf8('db_schema_name'), utf8('table_name', false), utf8('table_type', false)];
export const TABLES_SCHEMA = new Schema(tableFields);
export const TABLES_WITH_SCHEMA_SCHEMA = new Schema([...tableFields, new Field('table_schema', new Binary(), false)]);

export const TABLE_TYPES_SCHEMA = new Schema([utf8('table_type', false)]);

export const PRIMARY_KEYS_SCHEMA = new Schema([
  utf8('catalog_name'),
  utf8('db_schema_name'),
  utf8('table_name', false),
  utf8('column_name', false),
  // key_name before key_sequence, in FlightSql.proto's order: clients read columns by position.
  utf8('key_name'),
  int32('key_sequence', false),
]);

/** Shared by CommandGetExportedKeys, CommandGetImportedKeys and CommandGetCrossReference. */
export const FOREIGN_KEYS_SCHEMA = new Schema([
  utf8('pk_catalog_name'),
  utf8('pk_db_schema_name'),
  utf8('pk_table_name', false),
  utf8('pk_column_name', false),
  utf8('fk_catalog_name'),
  utf8('fk_db_schema_name'),
  utf8('fk_table_name', false),
  utf8('fk_column_name', false),
  int32('key_sequence', false),
  utf8('fk_key_name'),
  utf8('pk_key_name'),
  new Field('update_rule', new Uint8(), false),
  new Field('delete_rule', new Uint8(), false),
]);

/** The union members of CommandGetSqlInfo's `value`, in type-id order 0..5. */
export const SQL_INFO_VALUE_TYPE = {
  string: 0,
  bool: 1,
  bigint: 2,
  int32Bitmask: 3,
  stringList: 4,
  int32ToInt32ListMap: 5,
} as const;

export const STRING_LIST_TYPE = new List(new Field('item', new Utf8(), true));
export const INT32_LIST_TYPE = new List(new Field('item', new Int32(), true));
export const INT32_TO_INT32_LIST_MAP_TYPE = new Map_<Int32, List<Int32>>(
  new Field('entries', new Struct<{ key: Int32; value: List<Int32> }>([new Field('key', new Int32(), false), new Field('value', INT32_LIST_TYPE, true)]), false),
  false,
);

export const SQL_INFO_UNION_TYPE = new DenseUnion(
  [0, 1, 2, 3, 4, 5],
  [
    new Field('string_value', new Utf8(), false),
    new Field('bool_value', new Bool(), false),
    new Field('bigint_value', new Int64(), false),
    new Field('int32_bitmask', new Int32(), false),
    new Field('string_list', STRING_LIST_TYPE, false),
    new Field('int32_to_int32_list_map', INT32_TO_INT32_LIST_MAP_TYPE, false),
  ],
);

export const SQL_INFO_SCHEMA = new Schema([new Field('info_name', new Uint32(), false), new Field('value', SQL_INFO_UNION_TYPE, false)]);

export const XDBC_TYPE_INFO_SCHEMA = new Schema([
  utf8('type_name', false),
  int32('data_type', false),
  int32('column_size'),
  utf8('literal_prefix'),
  utf8('literal_suffix'),
  new Field('create_params', new List(new Field('item', new Utf8(), false)), true),
  int32('nullable', false),
  new Field('case_sensitive', new Bool(), false),
  int32('searchable', false),
  new Field('unsigned_attribute', new Bool(), true),
  new Field('fixed_prec_scale', new Bool(), false),
  new Field('auto_increment', new Bool(), true),
  utf8('local_type_name'),
  int32('minimum_scale'),
  int32('maximum_scale'),
  int32('sql_data_type', false),
  int32('datetime_subcode'),
  int32('num_prec_radix'),
  int32('interval_precision'),
]);
