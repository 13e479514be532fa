import type { Engine } from '../../engine/engine.js';
import { quoteIdentifier } from '../../engine/sql-text.js';
import { visibleTablesQuery } from '../../engine/visible-tables.js';
import { internalRows } from './internal-query.js';

/** A table or view queries can name, as the catalog commands show it. */
export interface CatalogTable {
  readonly catalog: string;
  readonly schema: string;
  readonly name: string;
  /** `TABLE` (an accelerated table in memory) or `VIEW` (live sources, file-mode acceleration, manifest views, Spice's names). */
  readonly type: 'TABLE' | 'VIEW';
}

export const TABLE_TYPES = ['TABLE', 'VIEW'] as const;

/**
 * The catalog as Flight SQL clients see it: what queries can name (visible-tables.ts), in
 * DuckDB's default database (`memory`, so `memory.main.orders` runs as written) and any
 * catalog a plugin serves beside it (Spice's `spice.public.orders`). The runtime's attached
 * databases, DuckDB's system schemas and tables user SQL may not read are left out.
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

  /** Every catalog holding something queries can name, the default one first. */
  async catalogs(): Promise<string[]> {
    const home = await this.catalogName();
    const others = new Set((await this.tables()).map((table) => table.catalog).filter((catalog) => catalog !== home));
    return [home, ...[...others].sort()];
  }

  /** Schemas holding something queries can name, plus the default catalog's `main` (where unqualified names resolve). */
  async schemas(): Promise<Array<{ catalog: string; schema: string }>> {
    const home = await this.catalogName();
    const seen = new Map<string, { catalog: string; schema: string }>([[`${home}\u0000main`, { catalog: home, schema: 'main' }]]);
    for (const table of await this.tables()) seen.set(`${table.catalog}\u0000${table.schema}`, { catalog: table.catalog, schema: table.schema });
    return [...seen.values()].sort((a, b) => a.catalog.localeCompare(b.catalog) || a.schema.localeCompare(b.schema));
  }

  async tables(): Promise<CatalogTable[]> {
    const rows = await internalRows(this.#engine, visibleTablesQuery(this.#engine.sandbox.hiddenTableNames()));
    return rows
      .map((row) => ({
        catalog: String(row['table_catalog']),
        schema: String(row['table_schema']),
        name: String(row['table_name']),
        type: row['table_type'] === 'BASE TABLE' ? 'TABLE' : 'VIEW',
      }) as CatalogTable)
      .sort((a, b) => a.catalog.localeCompare(b.catalog) || a.schema.localeCompare(b.schema) || a.name.localeCompare(b.name));
  }

  /** Primary key columns of a table, from DuckDB's constraints (accelerated tables rarely have one). */
  async primaryKeys(table: CatalogTable): Promise<Array<{ column: string; sequence: number; keyName: string | null }>> {
    const rows = await internalRows(
      this.#engine,
      `SELECT constraint_column_names AS columns, constraint_name AS key_name FROM duckdb_constraints()
         WHERE database_name = $1 AND constraint_type = 'PRIMARY KEY' AND schema_name = $2 AND table_name = $3`,
      [table.catalog, table.schema, table.name],
    );
    const keys: Array<{ column: string; sequence: number; keyName: string | null }> = [];
    for (const row of rows) {
      const columns = Array.from((row['columns'] as Iterable<unknown> | null) ?? []);
      columns.forEach((column, index) => keys.push({ column: String(column), sequence: index + 1, keyName: row['key_name'] === null ? null : String(row['key_name']) }));
    }
    return keys;
  }

  /** `"catalog"."schema"."table"` for internal queries on a listed table. */
  static quoted(table: CatalogTable): string {
    return `${quoteIdentifier(table.catalog)}.${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
  }
}
