import { QuarryError } from '../errors/quarry-error.js';
import { readOnlyRefusal, type QueryRequest } from './types.js';
import { neverStatementError } from '../engine/statement-gate.js';

/** What the policy needs to know about datasets: why one cannot take writes (undefined: it can). */
export type WriteRefusal = (dataset: string) => string | undefined;

/**
 * The core's rule for user SQL, tapped on `query.before` at STAGE.AUTHORIZE: reads run;
 * statements that change engine state are refused; the only write is INSERT into a dataset
 * with `access: read_write`, by a caller that may write.
 */
export function createStatementPolicy(writeRefusal: WriteRefusal): (request: QueryRequest) => void {
  return (request) => {
    if (request.kind === 'read') return;
    if (request.kind === 'other') throw neverStatementError(request.statementType);
    if (!request.principal.canWrite) {
      throw new QuarryError('WRITE_NOT_ALLOWED', `${request.statementType} writes, and ${readOnlyRefusal(request.principal)}`);
    }
    const target = request.statementType === 'INSERT' ? insertTarget(request.sql) : undefined;
    if (!target) {
      throw new QuarryError('WRITE_NOT_ALLOWED', `${request.statementType} is not allowed: the only write accepted is INSERT INTO a dataset with access: read_write`);
    }
    const refusal = writeRefusal(target);
    if (refusal) throw new QuarryError('WRITE_NOT_ALLOWED', `INSERT refused: ${refusal}`);
  };
}

/** The table an INSERT writes to (`INSERT [OR ...] INTO name`), lower-case, unquoted. */
export function insertTarget(sql: string): string | undefined {
  const match = /\binsert\s+(?:or\s+\w+\s+)?into\s+((?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*)(?:\.(?:"(?:[^"]|"")+"|[A-Za-z_][\w$]*))*)/i.exec(sql);
  if (!match) return undefined;
  const parts = match[1]!.split('.').map((part) => (part.startsWith('"') ? part.slice(1, -1).replaceAll('""', '"') : part).toLowerCase());
  // `memory.main.orders` and `main.orders` name the dataset `orders`.
  if (parts.length === 3 && parts[0] === 'memory') parts.shift();
  if (parts.length === 2 && parts[0] === 'main') parts.shift();
  return parts.join('.');
}

/** Datasets a statement mentions, matched by name (case-insensitive); cheap and conservative. */
export function referencedDatasets(sql: string, datasetNames: readonly string[]): string[] {
  if (datasetNames.length === 0) return [];
  const wanted = new Set(datasetNames.map((name) => name.toLowerCase()));
  const found = new Set<string>();
  const identifier = /"((?:[^"]|"")+)"(?:\."((?:[^"]|"")+)")?|([A-Za-z_][A-Za-z0-9_$]*(?:\.[A-Za-z_][A-Za-z0-9_$]*)?)/g;
  for (const match of sql.matchAll(identifier)) {
    const text = (match[3] ?? (match[2] ? `${match[1]}.${match[2]}` : match[1]) ?? '').toLowerCase();
    if (wanted.has(text)) found.add(text);
    else {
      const last = text.split('.').pop() ?? '';
      if (wanted.has(last)) found.add(last);
    }
  }
  return [...found];
}
