/**
 * User INSERTs name the dataset (`INSERT INTO orders ...`). Two cases need the statement
 * pointed elsewhere before the engine binds it:
 *  - file mode: `orders` is a view in `main` over a table in the attached database file, and
 *    DuckDB cannot insert through a view, so the target becomes that table;
 *  - `on_conflict`: a plain `INSERT` becomes `INSERT OR REPLACE` (upsert) or `INSERT OR IGNORE`
 *    (drop), which DuckDB resolves against the table's primary-key constraint.
 * Only a statement whose first keyword is INSERT is touched (never text inside a SELECT).
 */
export interface InsertTarget {
  /** The quoted table to write, e.g. `"quarry_file_orders"."main"."orders"`. */
  readonly table: string;
  /** `OR REPLACE` / `OR IGNORE`, or undefined to keep the statement's own. */
  readonly conflictClause: 'OR REPLACE' | 'OR IGNORE' | undefined;
}

const IDENTIFIER = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)`;
const LEADING = String.raw`^(?:\s+|--[^\n]*\n|/\*[\s\S]*?\*/)*`;
const INSERT_HEAD = new RegExp(`${LEADING}(insert)(\\s+or\\s+\\w+)?(\\s+into\\s+)(${IDENTIFIER}(?:\\.${IDENTIFIER})*)`, 'i');

export function redirectInsert(sql: string, resolve: (dataset: string) => InsertTarget | undefined): string {
  const match = INSERT_HEAD.exec(sql);
  if (!match) return sql;
  const [whole, , ownConflict, into, name] = match as unknown as [string, string, string | undefined, string, string];
  const target = resolve(datasetName(name));
  if (!target) return sql;
  const conflict = ownConflict ?? (target.conflictClause ? ` ${target.conflictClause}` : '');
  const head = whole.slice(0, whole.length - (ownConflict ?? '').length - into.length - name.length);
  return `${head}${conflict}${into}${target.table}${sql.slice(whole.length)}`;
}

/** `memory.main.orders`, `main.orders`, `"Orders"` all name the dataset `orders`. */
function datasetName(text: string): string {
  const parts = (text.match(new RegExp(IDENTIFIER, 'g')) ?? []).map((part) => (part.startsWith('"') ? part.slice(1, -1).replaceAll('""', '"') : part).toLowerCase());
  if (parts.length === 3 && parts[0] === 'memory') parts.shift();
  if (parts.length === 2 && parts[0] === 'main') parts.shift();
  return parts.join('.');
}
