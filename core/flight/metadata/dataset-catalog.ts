import type { Engine } from '../../engine/engine.js';
import { quoteIdentifier } from '../../engine/sql-text.js';
import { internalRows } from './internal-query.js';

/** A manifest dataset as the catalog commands show it. */
export interface CatalogTable {
  readonly catalog: string;
  readonly schema: string;
  readonly name: string;
  /** `TABLE` (an accelerated table in memory) or `VIEW` (live sources, file-mode acceleration). */
  readonly type: 'TABLE' | 'VIEW';
}

export const TABLE_TYPES = ['TABLE', 'VIEW'] as const;

/**
 * The catalog as Flight SQL clients see it: DuckDB's own default database (`memory`), so
 * fully qualified names a client builds (`memory.main.orders`) run as written. Only the
 * manifest's datasets are listed; the runtime's attached acceleration databases
 * (`quarry_file_*`), DuckDB's system schemas and anything else are hidden.
 */
export class DatasetCatalog {
  readonly #engine: Engine;

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  async catalogName(): Promise<string> {
    const rows = await internalRows(this.#engine, 'SELECT current_database() AS name');
    return String(rows[0]?.['name'] ?? 'memory');
  }

  /** Schemas holding at least one dataset, plus `main` (where unqualified names resolve). */
  async schemas(): Promise<{ catalog: string; schemas: string[] }> {
    const { catalog, tables } = await this.tables();
    const schemas = new Set<string>(['main']);
    for (const table of tables) schemas.add(table.schema);
    return { catalog, schemas: [...schemas].sort() };
  }

  async tables(): Promise<{ catalog: string; tables: CatalogTable[] }> {
    const wanted = new Set(this.#engine.datasetNames().map((name) => qualifiedKey(name.includes('.') ? name : `main.${name}`)));
    const rows = await internalRows(
      this.#engine,
      `SELECT database_name, schema_name, table_name AS name, 'TABLE' AS table_type FROM duckdb_tables()
         WHERE database_name = current_database() AND NOT internal
       UNION ALL
       SELECT database_name, schema_name, view_name AS name, 'VIEW' AS table_type FROM duckdb_views()
         WHERE database_name = current_database() AND NOT internal`,
    );
    const catalog = String(rows[0]?.['database_name'] ?? (await this.catalogName()));
    const tables = rows
      .map((row) => ({ catalog, schema: String(row['schema_name']), name: String(row['name']), type: row['table_type'] === 'TABLE' ? 'TABLE' : 'VIEW' }) as CatalogTable)
      .filter((table) => wanted.has(qualifiedKey(`${table.schema}.${table.name}`)))
      .sort((a, b) => a.schema.localeCompare(b.schema) || a.name.localeCompare(b.name) || a.type.localeCompare(b.type));
    return { catalog, tables };
  }

  /** Primary key columns of a dataset table, from DuckDB's constraints (accelerated tables rarely have one). */
  async primaryKeys(table: CatalogTable): Promise<Array<{ column: string; sequence: number; keyName: string | null }>> {
    const rows = await internalRows(
      this.#engine,
      `SELECT constraint_column_names AS columns, constraint_name AS key_name FROM duckdb_constraints()
         WHERE database_name = current_database() AND constraint_type = 'PRIMARY KEY' AND schema_name = $1 AND table_name = $2`,
      [table.schema, table.name],
    );
    const keys: Array<{ column: string; sequence: number; keyName: string | null }> = [];
    for (const row of rows) {
      const columns = Array.from((row['columns'] as Iterable<unknown> | null) ?? []);
      columns.forEach((column, index) => keys.push({ column: String(column), sequence: index + 1, keyName: row['key_name'] === null ? null : String(row['key_name']) }));
    }
    return keys;
  }

  /** `"schema"."table"` for internal queries on a listed table. */
  static quoted(table: CatalogTable): string {
    return `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
  }
}

function qualifiedKey(name: string): string {
  return name.toLowerCase();
}
