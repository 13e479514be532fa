import test from 'ava';
import { Type, type Table } from 'apache-arrow';
import { SqlInfo, XdbcDataType } from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { decodeEncapsulatedSchema } from '../../core/flight/ipc/flight-message-reader.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { withFlight } from './flight-helpers.js';

const manifest = `${QUICKSTART_MANIFEST}
  - from: file:data/orders.parquet
    name: sales.archive
  - from: file:data/orders.parquet
    name: orders_file
    acceleration:
      enabled: true
      mode: file
`;
const setup = { manifest, withQuickstartData: true };

const fieldsOf = (table: Table) => table.schema.fields.map((field) => `${field.name}:${field.type}:${field.nullable ? 'null' : 'not null'}`);
const rowsOf = (table: Table) => table.toArray().map((row) => row.toJSON());

test('catalogs, schemas and table types, with LIKE filters', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const catalogs = await client.getCatalogs();
    t.deepEqual(fieldsOf(catalogs), ['catalog_name:Utf8:not null']);
    t.deepEqual(rowsOf(catalogs), [{ catalog_name: 'memory' }, { catalog_name: 'spice' }], "DuckDB's default catalog, then Spice's names (spice-catalog)");

    const schemas = await client.getDbSchemas();
    t.deepEqual(fieldsOf(schemas), ['catalog_name:Utf8:null', 'db_schema_name:Utf8:not null']);
    t.deepEqual(rowsOf(schemas), [
      { catalog_name: 'memory', db_schema_name: 'main' },
      { catalog_name: 'memory', db_schema_name: 'runtime' },
      { catalog_name: 'memory', db_schema_name: 'sales' },
      { catalog_name: 'spice', db_schema_name: 'public' },
      { catalog_name: 'spice', db_schema_name: 'runtime' },
      { catalog_name: 'spice', db_schema_name: 'sales' },
    ]);
    t.deepEqual(rowsOf(await client.getDbSchemas({ dbSchemaFilterPattern: 's_l%' })).map((row) => `${row['catalog_name']}.${row['db_schema_name']}`), ['memory.sales', 'spice.sales']);
    t.deepEqual(rowsOf(await client.getDbSchemas({ catalog: 'spice', dbSchemaFilterPattern: 'p%' })).map((row) => row['db_schema_name']), ['public']);
    t.deepEqual(rowsOf(await client.getDbSchemas({ catalog: 'other' })), []);

    const types = await client.getTableTypes();
    t.deepEqual(fieldsOf(types), ['table_type:Utf8:not null']);
    t.deepEqual(rowsOf(types).map((row) => row['table_type']), ['TABLE', 'VIEW']);
  });
});

test('tables list what queries can name, filter by catalog, pattern and type, and carry their schemas', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const tables = await client.getTables({ catalog: 'memory' });
    t.deepEqual(fieldsOf(tables), ['catalog_name:Utf8:null', 'db_schema_name:Utf8:null', 'table_name:Utf8:not null', 'table_type:Utf8:not null']);
    t.deepEqual(rowsOf(tables), [
      { catalog_name: 'memory', db_schema_name: 'main', table_name: 'customers', table_type: 'VIEW' },
      { catalog_name: 'memory', db_schema_name: 'main', table_name: 'orders', table_type: 'TABLE' },
      { catalog_name: 'memory', db_schema_name: 'main', table_name: 'orders_file', table_type: 'VIEW' },
      { catalog_name: 'memory', db_schema_name: 'runtime', table_name: 'task_history', table_type: 'VIEW' },
      { catalog_name: 'memory', db_schema_name: 'runtime', table_name: 'user_functions', table_type: 'TABLE' },
      { catalog_name: 'memory', db_schema_name: 'sales', table_name: 'archive', table_type: 'VIEW' },
    ], 'the quarry_file_* acceleration database, the tables task history keeps for itself and DuckDB system tables stay hidden');
    t.deepEqual(rowsOf(await client.getTables({ catalog: 'spice' })).map((row) => `${row['db_schema_name']}.${row['table_name']}`), ['public.customers', 'public.orders', 'public.orders_file', 'runtime.task_history', 'sales.archive']);
    t.deepEqual(rowsOf(await client.getTables({ catalog: 'memory', tableNameFilterPattern: 'ord%' })).map((row) => row['table_name']), ['orders', 'orders_file']);
    t.deepEqual(rowsOf(await client.getTables({ tableNameFilterPattern: 'order_' })).map((row) => `${row['catalog_name']}.${row['table_name']}`), ['memory.orders', 'spice.orders']);
    t.deepEqual(rowsOf(await client.getTables({ tableTypes: ['TABLE'] })).map((row) => row['table_name']), ['orders', 'user_functions']);
    t.deepEqual(rowsOf(await client.getTables({ catalog: 'memory', dbSchemaFilterPattern: 'sales' })).map((row) => row['table_name']), ['archive']);

    const withSchemas = await client.getTables({ catalog: 'memory', tableNameFilterPattern: 'orders', includeSchema: true });
    t.deepEqual(fieldsOf(withSchemas).at(-1), 'table_schema:Binary:not null');
    const schema = decodeEncapsulatedSchema(withSchemas.get(0)!.toJSON()['table_schema'] as Uint8Array);
    const { table } = await client.query('SELECT * FROM orders LIMIT 0');
    t.deepEqual(schema.fields.map((field) => `${field.name}:${field.type}`), table.schema.fields.map((field) => `${field.name}:${field.type}`));
  });
});

test('SqlInfo answers with the union-typed value column the spec defines', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const info = await client.getSqlInfo([SqlInfo.FLIGHT_SQL_SERVER_NAME, SqlInfo.FLIGHT_SQL_SERVER_VERSION, SqlInfo.FLIGHT_SQL_SERVER_ARROW_VERSION, SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY, SqlInfo.SQL_KEYWORDS, SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR, SqlInfo.SQL_SUPPORTED_UNIONS, SqlInfo.SQL_MAX_COLUMN_NAME_LENGTH, SqlInfo.SQL_SUPPORTS_CONVERT, 99_999]);
    t.deepEqual(fieldsOf(info), ['info_name:Uint32:not null', 'value:Union<Utf8 | Bool | Int64 | Int32 | List<Utf8> | Map<{key:Int32, value:List<Int32>}>>:not null']);
    const value = info.schema.fields[1]!.type;
    t.is(value.typeId, Type.Union);
    t.deepEqual((value as { typeIds: Int32Array }).typeIds.length, 6);
    t.deepEqual(value.children.map((child: { name: string }) => child.name), ['string_value', 'bool_value', 'bigint_value', 'int32_bitmask', 'string_list', 'int32_to_int32_list_map']);
    const values = new Map(rowsOf(info).map((row) => [row['info_name'] as number, row['value']]));
    t.is(values.get(SqlInfo.FLIGHT_SQL_SERVER_NAME), 'Quarry');
    t.regex(String(values.get(SqlInfo.FLIGHT_SQL_SERVER_VERSION)), /^\d+\.\d+\.\d+/);
    t.regex(String(values.get(SqlInfo.FLIGHT_SQL_SERVER_ARROW_VERSION)), /^\d+\.\d+\.\d+/);
    t.is(values.get(SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY), true, 'no dataset is access: read_write');
    t.true([...(values.get(SqlInfo.SQL_KEYWORDS) as Iterable<string>)].includes('select'));
    t.is(values.get(SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR), '"');
    t.is(values.get(SqlInfo.SQL_SUPPORTED_UNIONS), 3);
    t.is(values.get(SqlInfo.SQL_MAX_COLUMN_NAME_LENGTH), 0n);
    t.true(values.has(SqlInfo.SQL_SUPPORTS_CONVERT));
    t.false(values.has(99_999), 'unknown ids are left out');
    const everything = await client.getSqlInfo();
    t.true(everything.numRows > 80);
  });
});

test('XDBC type info, primary keys and the foreign key commands have the spec schemas', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const types = await client.getXdbcTypeInfo();
    t.is(fieldsOf(types).length, 19);
    t.deepEqual(fieldsOf(types).slice(0, 3), ['type_name:Utf8:not null', 'data_type:Int32:not null', 'column_size:Int32:null']);
    const dataTypes = rowsOf(types).map((row) => row['data_type'] as number);
    t.deepEqual(dataTypes, [...dataTypes].sort((a, b) => a - b), 'ordered by data_type');
    t.deepEqual(rowsOf(await client.getXdbcTypeInfo(XdbcDataType.XDBC_VARCHAR)).map((row) => row['type_name']), ['VARCHAR']);

    const keys = await client.getPrimaryKeys({ table: 'orders' });
    t.deepEqual(fieldsOf(keys), ['catalog_name:Utf8:null', 'db_schema_name:Utf8:null', 'table_name:Utf8:not null', 'column_name:Utf8:not null', 'key_name:Utf8:null', 'key_sequence:Int32:not null']);
    t.is(keys.numRows, 0);
    const foreignKeyFields = [
      'pk_catalog_name:Utf8:null', 'pk_db_schema_name:Utf8:null', 'pk_table_name:Utf8:not null', 'pk_column_name:Utf8:not null',
      'fk_catalog_name:Utf8:null', 'fk_db_schema_name:Utf8:null', 'fk_table_name:Utf8:not null', 'fk_column_name:Utf8:not null',
      'key_sequence:Int32:not null', 'fk_key_name:Utf8:null', 'pk_key_name:Utf8:null', 'update_rule:Uint8:not null', 'delete_rule:Uint8:not null',
    ];
    for (const table of [await client.getExportedKeys({ table: 'orders' }), await client.getImportedKeys({ table: 'orders' }), await client.getCrossReference({ pkTable: 'orders', fkTable: 'customers' })]) {
      t.deepEqual(fieldsOf(table), foreignKeyFields);
      t.is(table.numRows, 0);
    }
  });
});
