import type { DuckDBConnection } from '@duckdb/node-api';
import { StatementType } from './duckdb-api.js';
import type { StatementKind } from '../pipeline/types.js';

/**
 * What a statement does, from the engine's own statement type: reads may run, writes
 * need a writable dataset and a caller allowed to write, and anything that changes engine
 * state (SET, ATTACH, transactions, ...) is refused for user SQL.
 */
const readTypes = new Set<StatementType>([StatementType.SELECT]);
const writeTypes = new Set<StatementType>([
  StatementType.INSERT,
  StatementType.UPDATE,
  StatementType.DELETE,
  StatementType.CREATE,
  StatementType.DROP,
  StatementType.ALTER,
  StatementType.COPY,
  StatementType.COPY_DATABASE,
  StatementType.MERGE_INTO,
  StatementType.VACUUM,
]);
// ATTACH, DETACH, LOAD (and INSTALL, which DuckDB types as LOAD) are never user statements:
// they fall to 'other' and answer STATEMENT_NOT_ALLOWED, whoever asks.

export function statementTypeName(type: StatementType, sql?: string): string {
  // DuckDB types INSTALL as LOAD: a refusal should name what the caller wrote.
  if (type === StatementType.LOAD && sql !== undefined && /^\s*(?:force\s+)?install\b/i.test(sql)) return 'INSTALL';
  return StatementType[type] ?? 'UNKNOWN';
}

export function classifyStatement(type: StatementType): StatementKind {
  if (readTypes.has(type)) return 'read';
  if (writeTypes.has(type)) return 'write';
  return 'other';
}

/** `EXPLAIN [ANALYZE] [(options)]` and the comments before it: what is left is the statement it explains. */
export const EXPLAIN_PREFIX = /^\s*(?:(?:--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)\s*)*explain\b\s*(?:\([^)]*\)\s*)?(?:analy[sz]e\b\s*)?(?:\([^)]*\)\s*)?/i;

/**
 * What an EXPLAIN does is what it wraps: `EXPLAIN ANALYZE` runs the statement (a DROP, an
 * INSERT, a COPY ... TO), and even a plain EXPLAIN of a write is no read. The wrapped
 * statement is parsed and prepared by the engine (never run) and classified as itself; an
 * EXPLAIN whose statement cannot be told is refused as `other`.
 */
export async function classifyExplain(connection: DuckDBConnection, sql: string): Promise<{ kind: StatementKind; statementType: string }> {
  const prefix = EXPLAIN_PREFIX.exec(sql);
  if (!prefix) return { kind: 'other', statementType: 'EXPLAIN' };
  try {
    const statements = await connection.extractStatements(sql.slice(prefix[0].length));
    if (statements.count !== 1) return { kind: 'other', statementType: 'EXPLAIN' };
    const inner = await statements.prepare(0);
    const type = inner.statementType;
    inner.destroySync();
    if (type === StatementType.SELECT) return { kind: 'read', statementType: 'EXPLAIN' };
    const kind = classifyStatement(type);
    return { kind: kind === 'read' ? 'read' : kind, statementType: `EXPLAIN ${statementTypeName(type)}` };
  } catch {
    return { kind: 'other', statementType: 'EXPLAIN' };
  }
}

/** A prepared statement's kind and the type name refusals use (an EXPLAIN: that of what it wraps). */
export function classifyPrepared(connection: DuckDBConnection, sql: string, type: StatementType): Promise<{ kind: StatementKind; statementType: string }> {
  if (type === StatementType.EXPLAIN) return classifyExplain(connection, sql);
  return Promise.resolve({ kind: classifyStatement(type), statementType: statementTypeName(type, sql) });
}
