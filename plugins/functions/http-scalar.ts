import { functionErrorMessage } from '../../core/engine/engine-errors.js';
import { AsyncScalarFunction, type AsyncScalarType } from '../../core/engine/native/async-scalar.js';
import type { FunctionType } from './types.js';

/** A scalar SQL function answered by an HTTP endpoint: what differs between remote functions and SQL tools. */
export interface HttpScalarSpec {
  readonly name: string;
  /** How errors name it, e.g. `function geocode`. */
  readonly where: string;
  readonly from: string;
  readonly args: ReadonlyArray<{ name: string; type: FunctionType }>;
  readonly returns: FunctionType;
  /** The values of one chunk's rows (each its arguments as a JSON object), in row order, as the engine takes them; rejects with the reason. */
  evaluate(rows: Array<Record<string, unknown>>): Promise<unknown[]>;
}

/** Request headers of a JSON POST to a function or tool endpoint. */
export function jsonPostHeaders(accept: string, authBearer: string | undefined): Record<string, string> {
  return { 'content-type': 'application/json', accept, ...(authBearer ? { authorization: `Bearer ${authBearer}` } : {}) };
}

/** Remote functions exchange JSON, so only types with a plain JSON form are accepted. */
export function engineType(type: FunctionType, where: string): AsyncScalarType {
  if (type.kind === 'primitive') {
    if (type.family === 'bigint') return 'BIGINT';
    if (type.family === 'integer') return 'INTEGER';
    if (type.family === 'float') return type.sql === 'FLOAT' ? 'FLOAT' : 'DOUBLE';
    if (type.family === 'string') return 'VARCHAR';
    if (type.family === 'boolean') return 'BOOLEAN';
  }
  throw new Error(`${where}: remote functions take and return int, float, utf8 or boolean values only`);
}

/** BIGINT values arrive as bigint; JSON has numbers (kept exact as text when too large). */
export function toJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value ?? null;
}

/**
 * The engine function around `spec.evaluate`: the chunk's arguments as JSON objects in, one
 * value a row out; any failure fails the query with FUNCTION_CALL_FAILED naming the function
 * and its endpoint. The engine thread waits for the answer, the event loop does not
 * (core/engine/native/async-scalar.ts). Volatile: DuckDB must not fold a call with constant
 * arguments while it binds the statement.
 */
export function httpScalarFunction(spec: HttpScalarSpec): AsyncScalarFunction {
  return new AsyncScalarFunction({
    name: spec.name,
    returnType: engineType(spec.returns, `${spec.where} signature.returns`),
    parameterTypes: spec.args.map((arg) => engineType(arg.type, `${spec.where} argument ${arg.name}`)),
    evaluate: async (columns, rowCount) => {
      const rows = Array.from({ length: rowCount }, (_, row) => Object.fromEntries(spec.args.map((arg, index) => [arg.name, toJson(columns[index]![row])])));
      try {
        return await spec.evaluate(rows);
      } catch (error) {
        throw new Error(functionErrorMessage('FUNCTION_CALL_FAILED', `${spec.where} (${spec.from}): ${(error as Error).message}`), { cause: error });
      }
    },
  });
}
