import { Field, Int64, Schema, Utf8 } from 'apache-arrow';
import type { Engine } from '../engine/engine.js';
import type { PreparedQuery } from '../engine/prepared-query.js';
import type { StatementKind } from '../pipeline/types.js';

export interface StatementDescription {
  readonly kind: StatementKind;
  readonly statementType: string;
  readonly parameterCount: number;
  /** Result columns; empty for statements that return none. */
  readonly datasetSchema: Schema;
  /** One field per positional parameter (`$1`, `$2`, ...). */
  readonly parameterSchema: Schema;
}

/**
 * What the engine may add to a prepared query: the result and parameter types DuckDB
 * resolved at prepare time. Used when present; otherwise we fall back to the probes below.
 */
type DescribedQuery = PreparedQuery & { readonly resultSchema?: Schema; readonly parameterSchema?: Schema };

/** DuckDB answers DML with one BIGINT column, `Count`. */
const WRITE_RESULT_SCHEMA = new Schema([new Field('Count', new Int64(), true)]);

/**
 * The schemas GetFlightInfo, GetSchema and CreatePreparedStatement report, without running
 * the statement. Without engine support the result schema of a read comes from a
 * `LIMIT 0` probe (parameters bound to NULL) and parameters are reported as strings, which
 * DuckDB casts to the type the statement needs; the schema DoGet streams is always the
 * engine's own.
 */
export async function describeStatement(engine: Engine, sql: string): Promise<StatementDescription> {
  const prepared = (await engine.prepare(sql)) as DescribedQuery;
  const { kind, statementType, parameterCount } = prepared;
  // Described, a statement must not run (the probes below) or promise a ticket it would refuse.
  const refusal = kind === 'other' ? undefined : await prepared.functionRefusal().catch((error: unknown) => {
    prepared.close();
    throw error;
  });
  if (refusal) {
    prepared.close();
    throw refusal;
  }
  const known = { datasetSchema: prepared.resultSchema, parameterSchema: prepared.parameterSchema };
  prepared.close();
  const parameterSchema = known.parameterSchema ?? new Schema(Array.from({ length: parameterCount }, (_, index) => new Field(`$${index + 1}`, new Utf8(), true)));
  if (known.datasetSchema) return { kind, statementType, parameterCount, datasetSchema: known.datasetSchema, parameterSchema };
  const datasetSchema = kind === 'read' ? await probeReadSchema(engine, sql, parameterCount) : kind === 'write' ? WRITE_RESULT_SCHEMA : new Schema([]);
  return { kind, statementType, parameterCount, datasetSchema, parameterSchema };
}

async function probeReadSchema(engine: Engine, sql: string, parameterCount: number): Promise<Schema> {
  const nulls = Array.from({ length: parameterCount }, () => null);
  // A subquery cannot hold EXPLAIN, SHOW, PRAGMA or a trailing semicolon: those fall through.
  const wrapped = await schemaOf(engine, `SELECT * FROM (\n${sql}\n) AS quarry_schema_probe LIMIT 0`, nulls);
  if (wrapped) return wrapped;
  if (parameterCount === 0) {
    const direct = await schemaOf(engine, sql, []);
    if (direct) return direct;
  }
  return new Schema([]);
}

async function schemaOf(engine: Engine, sql: string, parameters: readonly unknown[]): Promise<Schema | undefined> {
  let prepared: PreparedQuery;
  try {
    prepared = await engine.prepare(sql);
  } catch {
    return undefined;
  }
  if (prepared.kind !== 'read') {
    prepared.close();
    return undefined;
  }
  try {
    const stream = await prepared.execute(parameters, new AbortController().signal);
    await stream.batches[Symbol.asyncIterator]().return?.();
    return stream.schema;
  } catch {
    return undefined;
  }
}
