import { QuarryError } from '../errors/quarry-error.js';
import { EXPLAIN_PREFIX } from './classify.js';

/**
 * What the runtime decides from a statement's first words, before the engine sees it.
 *
 * Preparing a statement is not free of effects: DuckDB binds `CREATE SECRET` by opening its
 * secret storage (a refused attempt left the engine unable to list secrets at all), and binds
 * `EXPORT DATABASE` by planning a COPY of every table. Statements that are never user SQL are
 * therefore refused from their words, unprepared; everything else is classified from the
 * engine's own prepare (classify.ts).
 */

/** Leading words (upper case, single spaces) of statements user SQL may never run, whoever asks. */
const NEVER_STATEMENTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(?:CREATE (?:OR REPLACE )?(?:(?:PERSISTENT|TEMPORARY|TEMP) )?|DROP (?:(?:PERSISTENT|TEMPORARY|TEMP) )?)SECRET\b/, 'SECRET'],
  [/^(?:FORCE )?INSTALL\b/, 'INSTALL'],
  [/^UPDATE EXTENSIONS\b/, 'UPDATE EXTENSIONS'],
  [/^LOAD\b/, 'LOAD'],
  [/^ATTACH\b/, 'ATTACH'],
  [/^DETACH\b/, 'DETACH'],
  [/^USE\b/, 'USE'],
  [/^(?:SET|RESET)\b/, 'SET'],
  [/^PRAGMA\b/, 'PRAGMA'],
  [/^CALL\b/, 'CALL'],
  [/^(?:FORCE )?CHECKPOINT\b/, 'CHECKPOINT'],
  [/^EXPORT\b/, 'EXPORT'],
  [/^IMPORT\b/, 'IMPORT'],
  [/^(?:BEGIN|START|COMMIT|END|ROLLBACK|ABORT)\b/, 'TRANSACTION'],
  [/^(?:PREPARE|EXECUTE|DEALLOCATE)\b/, 'PREPARE'],
  [/^(?:VACUUM|ANALYZE)\b/, 'VACUUM'],
];

/** What to do instead, for the statements users most often reach for. */
const NEVER_STATEMENT_HINTS: Readonly<Record<string, string>> = {
  PRAGMA: "for a table's columns use DESCRIBE name or SELECT * FROM pragma_table_info('name'); for the tables, SHOW TABLES",
  CALL: 'call a table function in FROM: SELECT * FROM name(...)',
  INSTALL: 'the runtime does not install engine extensions; plugins bring their functions (runtime.params)',
  LOAD: 'the runtime does not load engine extensions; plugins bring their functions (runtime.params)',
  SECRET: 'sources take their credentials from the manifest (params with ${ secrets:NAME })',
};

const READ_STATEMENTS = 'SELECT, WITH, EXPLAIN, DESCRIBE, SHOW, SUMMARIZE';

/** The refusal of a statement user SQL may not run (a never statement, or one the engine types as neither read nor write), naming it. */
export function neverStatementError(statementType: string): QuarryError {
  const hint = NEVER_STATEMENT_HINTS[statementType];
  return new QuarryError('STATEMENT_NOT_ALLOWED', `${statementType} statements are not accepted: queries may read datasets (${READ_STATEMENTS})${hint ? `; ${hint}` : ''}`);
}

/** Statements that change data or schema: a write, whatever the engine makes of it. */
const WRITE_STATEMENT = /^(INSERT|UPDATE|DELETE|TRUNCATE|CREATE|DROP|ALTER|COPY|MERGE|COMMENT)\b/;

/** Comments, whitespace and opening parentheses before the first word. */
const LEADING_NOISE = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*/;

/** The first few words of a statement, upper case and single-spaced, past comments and an EXPLAIN. */
function leadingWords(sql: string): string {
  const text = sql.replace(EXPLAIN_PREFIX, '').replace(LEADING_NOISE, '');
  const words: string[] = [];
  for (const match of text.slice(0, 200).matchAll(/[A-Za-z_]+|\S/g)) {
    words.push(match[0].toUpperCase());
    if (words.length === 5) break;
  }
  return words.join(' ');
}

/**
 * Planning limits, checked on the text before the engine sees it: DuckDB does not check for an
 * interrupt while it plans, so a statement that takes minutes to plan cannot be stopped by a
 * client leaving or by shutdown. Measured on DuckDB 1.5: 2,000 UNION branches plan in ~70 ms,
 * 20,000 took 124 s and ~7 GB; comments nested 2,000 deep parse in ~0.3 s, 10,000 in 12 s.
 */
export const MAX_SET_OPERATIONS = 4_096;
export const MAX_COMMENT_NESTING = 256;

/** SQL_TOO_COMPLEX when `sql` is beyond the planning limits; undefined otherwise. One pass over the text. */
export function complexityRefusal(sql: string): QuarryError | undefined {
  let setOperations = 0;
  let depth = 0;
  let deepest = 0;
  for (const match of sql.matchAll(/\/\*|\*\/|\b(?:union|intersect|except)\b/gi)) {
    const token = match[0];
    if (token === '/*') deepest = Math.max(deepest, ++depth);
    else if (token === '*/') depth = Math.max(0, depth - 1);
    else if (depth === 0) setOperations += 1;
  }
  if (setOperations > MAX_SET_OPERATIONS) {
    return new QuarryError('SQL_TOO_COMPLEX', `the statement combines ${setOperations + 1} queries with UNION/INTERSECT/EXCEPT; at most ${MAX_SET_OPERATIONS + 1} may be combined (planning more takes the engine minutes and cannot be interrupted): load the rows into a dataset, or split the statement`);
  }
  if (deepest > MAX_COMMENT_NESTING) {
    return new QuarryError('SQL_TOO_COMPLEX', `the statement nests comments ${deepest} deep; at most ${MAX_COMMENT_NESTING} levels are accepted`);
  }
  return undefined;
}

/** The name of the statement kind `sql` begins with when user SQL may never run it (`'SET'`, `'SECRET'`, ...); undefined otherwise. */
export function neverStatement(sql: string): string | undefined {
  const words = leadingWords(sql);
  for (const [pattern, name] of NEVER_STATEMENTS) if (pattern.test(words)) return name;
  return undefined;
}

/**
 * The write `sql` begins with (`'DELETE'`, ...), read from its words: for a statement the
 * engine could not prepare (a DELETE from a view fails to bind) that is still a write, and
 * must be refused as one rather than answered with the binder's complaint.
 */
export function writeStatement(sql: string): string | undefined {
  return WRITE_STATEMENT.exec(leadingWords(sql))?.[1];
}

/** Why `sql` is refused before the engine prepares it (a statement never run for users, or beyond the planning limits); undefined when it may be prepared. */
export function unpreparedRefusal(sql: string): QuarryError | undefined {
  const never = neverStatement(sql);
  return never !== undefined ? neverStatementError(never) : complexityRefusal(sql);
}
