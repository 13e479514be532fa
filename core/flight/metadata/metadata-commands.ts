import type { RecordBatch, Schema } from 'apache-arrow';
import { QuarryError } from '../../errors/quarry-error.js';
import type { FlightCommand } from '../flight-commands.js';
import type { FlightContext } from '../flight-context.js';
import { encapsulatedSchema } from '../ipc/flight-message-writer.js';
import { DatasetCatalog, TABLE_TYPES, type CatalogTable } from './dataset-catalog.js';
import { internalRows, schemaOfRelation } from './internal-query.js';
import { likeMatcher } from './like-pattern.js';
import { recordBatchOf } from './record-batch-builder.js';
import {
  CATALOGS_SCHEMA, DB_SCHEMAS_SCHEMA, FOREIGN_KEYS_SCHEMA, PRIMARY_KEYS_SCHEMA, SQL_INFO_SCHEMA,
  TABLES_SCHEMA, TABLES_WITH_SCHEMA_SCHEMA, TABLE_TYPES_SCHEMA, XDBC_TYPE_INFO_SCHEMA,
} from './result-schemas.js';
import { sqlInfoBatch } from './sql-info-batch.js';
import { sqlInfoValues } from './sql-info.js';
import { XDBC_TYPES } from './xdbc-types.js';

const METADATA_COMMANDS = [
  'CommandGetCatalogs', 'CommandGetDbSchemas', 'CommandGetTables', 'CommandGetTableTypes', 'CommandGetSqlInfo',
  'CommandGetXdbcTypeInfo', 'CommandGetPrimaryKeys', 'CommandGetExportedKeys', 'CommandGetImportedKeys', 'CommandGetCrossReference',
] as const;

export type MetadataCommand = Extract<FlightCommand, { name: (typeof METADATA_COMMANDS)[number] }>;

export function isMetadataCommand(command: FlightCommand): command is MetadataCommand {
  return (METADATA_COMMANDS as readonly string[]).includes(command.name);
}

/** The result schema of a metadata command (GetFlightInfo / GetSchema answer it without running anything). */
export function metadataSchema(command: MetadataCommand): Schema {
  switch (command.name) {
    case 'CommandGetCatalogs': return CATALOGS_SCHEMA;
    case 'CommandGetDbSchemas': return DB_SCHEMAS_SCHEMA;
    case 'CommandGetTables': return command.message.includeSchema ? TABLES_WITH_SCHEMA_SCHEMA : TABLES_SCHEMA;
    case 'CommandGetTableTypes': return TABLE_TYPES_SCHEMA;
    case 'CommandGetSqlInfo': return SQL_INFO_SCHEMA;
    case 'CommandGetXdbcTypeInfo': return XDBC_TYPE_INFO_SCHEMA;
    case 'CommandGetPrimaryKeys': return PRIMARY_KEYS_SCHEMA;
    case 'CommandGetExportedKeys':
    case 'CommandGetImportedKeys':
    case 'CommandGetCrossReference': return FOREIGN_KEYS_SCHEMA;
  }
}

/** An empty catalog filter means "no catalog", which no dataset is in. */
function catalogMatches(filter: string | undefined, catalog: string): boolean {
  return filter === undefined || filter.toLowerCase() === catalog.toLowerCase();
}

let keywordCache: Promise<string[]> | undefined;

/** Answers a metadata command from the engine's catalog: what queries can name (DatasetCatalog). */
export async function metadataResult(context: FlightContext, command: MetadataCommand): Promise<RecordBatch> {
  const catalog = context.catalog;
  switch (command.name) {
    case 'CommandGetCatalogs': {
      const names = await catalog.catalogs();
      return recordBatchOf(CATALOGS_SCHEMA, { catalog_name: names }, names.length);
    }
    case 'CommandGetDbSchemas': {
      const matches = likeMatcher(command.message.dbSchemaFilterPattern);
      const rows = (await catalog.schemas()).filter((row) => catalogMatches(command.message.catalog, row.catalog) && matches(row.schema));
      return recordBatchOf(DB_SCHEMAS_SCHEMA, { catalog_name: rows.map((row) => row.catalog), db_schema_name: rows.map((row) => row.schema) }, rows.length);
    }
    case 'CommandGetTables':
      return tablesBatch(context, command.message);
    case 'CommandGetTableTypes':
      return recordBatchOf(TABLE_TYPES_SCHEMA, { table_type: [...TABLE_TYPES] }, TABLE_TYPES.length);
    case 'CommandGetSqlInfo': {
      keywordCache ??= internalRows(context.engine, 'SELECT keyword_name FROM duckdb_keywords() ORDER BY keyword_name').then((rows) => rows.map((row) => String(row['keyword_name'])));
      const values = sqlInfoValues({
        readOnly: !context.manifest.datasets.some((dataset) => dataset.access === 'read_write'),
        bulkIngestion: true,
        statementTimeoutMs: context.statements.preparedTtlMs,
        keywords: await keywordCache,
      });
      return sqlInfoBatch(values, command.message.info);
    }
    case 'CommandGetXdbcTypeInfo': {
      const wanted = command.message.dataType;
      const rows = XDBC_TYPES.filter((row) => wanted === undefined || row.data_type === wanted);
      const columns: Record<string, unknown[]> = {};
      for (const field of XDBC_TYPE_INFO_SCHEMA.fields) columns[field.name] = rows.map((row) => row[field.name as keyof typeof row]);
      return recordBatchOf(XDBC_TYPE_INFO_SCHEMA, columns, rows.length);
    }
    case 'CommandGetPrimaryKeys': {
      const home = await catalog.catalogName();
      const tables = (await catalog.tables()).filter((table) => catalogMatches(command.message.catalog ?? home, table.catalog));
      const table = findTable(tables, command.message.dbSchema, command.message.table);
      const keys = table ? await catalog.primaryKeys(table) : [];
      return recordBatchOf(PRIMARY_KEYS_SCHEMA, {
        catalog_name: keys.map(() => table!.catalog),
        db_schema_name: keys.map(() => table!.schema),
        table_name: keys.map(() => table!.name),
        column_name: keys.map((key) => key.column),
        key_sequence: keys.map((key) => key.sequence),
        key_name: keys.map((key) => key.keyName),
      }, keys.length);
    }
    case 'CommandGetExportedKeys':
    case 'CommandGetImportedKeys':
    case 'CommandGetCrossReference':
      // Datasets carry no foreign keys: the answer is always empty, with the right schema.
      return recordBatchOf(FOREIGN_KEYS_SCHEMA, {}, 0);
  }
}

function findTable(tables: readonly CatalogTable[], schema: string | undefined, name: string): CatalogTable | undefined {
  return tables.find((table) => table.name.toLowerCase() === name.toLowerCase() && (schema === undefined || table.schema.toLowerCase() === schema.toLowerCase()));
}

async function tablesBatch(context: FlightContext, message: Extract<MetadataCommand, { name: 'CommandGetTables' }>['message']): Promise<RecordBatch> {
  const tables = await context.catalog.tables();
  const schemaMatches = likeMatcher(message.dbSchemaFilterPattern);
  const tableMatches = likeMatcher(message.tableNameFilterPattern);
  const types = new Set(message.tableTypes.map((type) => type.toUpperCase()));
  const rows = tables.filter((table) => catalogMatches(message.catalog, table.catalog) && schemaMatches(table.schema) && tableMatches(table.name) && (types.size === 0 || types.has(table.type)));
  const columns: Record<string, unknown[]> = {
    catalog_name: rows.map((table) => table.catalog),
    db_schema_name: rows.map((table) => table.schema),
    table_name: rows.map((table) => table.name),
    table_type: rows.map((table) => table.type),
  };
  if (!message.includeSchema) return recordBatchOf(TABLES_SCHEMA, columns, rows.length);
  columns['table_schema'] = await Promise.all(
    rows.map(async (table) => {
      try {
        return encapsulatedSchema(await schemaOfRelation(context.engine, DatasetCatalog.quoted(table)));
      } catch (error) {
        throw new QuarryError('DATASET_LOAD_FAILED', `the schema of ${table.catalog}.${table.schema}.${table.name} could not be read: ${(error as Error).message}`, { cause: error });
      }
    }),
  );
  return recordBatchOf(TABLES_WITH_SCHEMA_SCHEMA, columns, rows.length);
}
