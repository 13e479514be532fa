import { redirectInsert, type InsertTarget } from './acceleration/insert-redirect.js';
import type { DatasetWriteTarget } from './engine-api.js';
import { STAGED_WRITE } from './routed-write.js';
import { rewriteShowTables } from './visible-tables.js';

/** A write into a dataset whose rows a plugin takes: staged, handed over on execute. */
export interface WriteRoute {
  readonly dataset: string;
  readonly target: DatasetWriteTarget;
}

/** What the rewrites of a user's text look up. */
export interface StatementTextContext {
  hiddenTableNames(): readonly string[];
  writeTarget(dataset: string): DatasetWriteTarget | undefined;
  insertTarget(dataset: string): InsertTarget | undefined;
}

/**
 * The statement the engine prepares for a user's text (and the function policy checks).
 * `SHOW TABLES` lists only what user SQL may read; file-mode datasets are views over an
 * attached table, and on_conflict turns INSERT into an upsert; a dataset with a plugin write
 * target takes the rows in a staging table, handed over on execute (its route).
 */
export function statementText(text: string, context: StatementTextContext): { sql: string; routes: WriteRoute[] } {
  const routes: WriteRoute[] = [];
  const sql = redirectInsert(rewriteShowTables(text, () => context.hiddenTableNames()), (dataset) => {
    const target = context.writeTarget(dataset);
    if (!target) return context.insertTarget(dataset);
    routes.push({ dataset, target });
    return { table: STAGED_WRITE, conflictClause: undefined };
  });
  return { sql, routes };
}
