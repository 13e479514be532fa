import { quoteLiteral } from './sql-text.js';

/**
 * What queries can name, as one SQL listing shaped like `information_schema.tables`
 * (`table_catalog`, `table_schema`, `table_name`, `table_type` of `BASE TABLE` or `VIEW`):
 * the datasets, the manifest's views, and what plugins serve beside them (`runtime.task_history`,
 * Spice's `spice.public.<dataset>`). Left out: the engine's own catalogs (`system`, `temp`),
 * the databases the runtime attaches for itself (named `quarry_*`: file-mode acceleration,
 * fetch staging, attached DuckDB sources), metadata schemas, and tables user SQL may not read
 * (the sandbox's hidden tables). The Flight catalog commands and `SHOW TABLES` both read it.
 */
export function visibleTablesQuery(hiddenTables: readonly string[]): string {
  const hidden = hiddenTables.length === 0 ? '' : ` AND lower(table_name) NOT IN (${hiddenTables.map((name) => quoteLiteral(name.toLowerCase())).join(', ')})`;
  return `SELECT table_catalog, table_schema, table_name, table_type FROM information_schema.tables
   WHERE table_catalog NOT IN ('system', 'temp') AND NOT starts_with(table_catalog, 'quarry_')
     AND table_schema NOT IN ('information_schema', 'pg_catalog')${hidden}
   ORDER BY table_catalog, table_schema, table_name`;
}

/** `SHOW TABLES` as the whole statement (any case, an optional `;`): Spice's (DataFusion's) listing is answered. */
const SHOW_TABLES = /^\s*show\s+tables\s*;?\s*$/i;

/**
 * The statement to run for `text`: `SHOW TABLES` becomes the visible-tables listing, in the
 * shape Spice answers it (`table_catalog`, `table_schema`, `table_name`, `table_type`), in
 * place of DuckDB's one `name` column of the default schema; any other text is unchanged.
 */
export function rewriteShowTables(text: string, hiddenTables: () => readonly string[]): string {
  return SHOW_TABLES.test(text) ? visibleTablesQuery(hiddenTables()) : text;
}
