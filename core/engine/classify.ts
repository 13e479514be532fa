import { StatementType } from './duckdb-api.js';
import type { StatementKind } from '../pipeline/types.js';

/**
 * What a statement does, from the engine's own statement type: reads may run, writes
 * need a writable dataset and a caller allowed to write, and anything that changes engine
 * state (SET, ATTACH, transactions, ...) is refused for user SQL.
 */
const readTypes = new Set<StatementType>([StatementType.SELECT, StatementType.EXPLAIN]);
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
  StatementType.ATTACH,
  StatementType.DETACH,
  StatementType.LOAD,
  StatementType.VACUUM,
]);

export function statementTypeName(type: StatementType): string {
  return StatementType[type] ?? 'UNKNOWN';
}

export function classifyStatement(type: StatementType): StatementKind {
  if (readTypes.has(type)) return 'read';
  if (writeTypes.has(type)) return 'write';
  return 'other';
}
