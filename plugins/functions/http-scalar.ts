import { DuckDBScalarFunction } from '../../core/engine/duckdb-api.js';
import { functionErrorMessage } from '../../core/engine/engine-errors.js';
import { duckdbType, toJson } from './remote.js';
import type { FunctionType } from './types.js';

/** A scalar SQL function answered by an HTTP endpoint: what differs between remote functions and SQL tools. */
export interface HttpScalarSpec {
  readonly name: string;
  /** How errors name it, e.g. `function geocode`. */
  readonly where: string;
  readonly from: string;
  readonly args: ReadonlyArray<{ name: string; type: FunctionType }>;
  readonly returns: FunctionType;
  /** The values of one chunk's rows (each its arguments as a JSON object), in row order, as the engine takes them; throws with the reason. */
  evaluate(rows: Array<Record<string, unknown>>): unknown[];
}

/** Request headers of a JSON POST to a function or tool endpoint. */
export function jsonPostHeaders(accept: string, authBearer: string | undefined): Record<string, string> {
  return { 'content-type': 'application/json', accept, ...(authBearer ? { authorization: `Bearer ${authBearer}` } : {}) };
}

/**
 * The DuckDB scalar function around `spec.evaluate`: the chunk's arguments as JSON objects in,
 * one value a row out; any failure fails the query with FUNCTION_CALL_FAILED naming the
 * function and its endpoint. Volatile: DuckDB must not fold a call with constant arguments at
 * bind time, when the runtime cannot wait on the network.
 */
export function httpScalarFunction(spec: HttpScalarSpec): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name: spec.name,
    returnType: duckdbType(spec.returns, `${spec.where} signature.returns`),
    parameterTypes: spec.args.map((arg) => duckdbType(arg.type, `${spec.where} argument ${arg.name}`)),
    volatile: true,
    mainFunction: (info, input, output) => {
      try {
        const columns = spec.args.map((_, index) => input.getColumnVector(index));
        const rows = Array.from({ length: input.rowCount }, (_, row) => Object.fromEntries(spec.args.map((arg, index) => [arg.name, toJson(columns[index]!.getItem(row))])));
        spec.evaluate(rows).forEach((value, row) => output.setItem(row, value as never));
        output.flush();
      } catch (error) {
        info.setError(functionErrorMessage('FUNCTION_CALL_FAILED', `${spec.where} (${spec.from}): ${(error as Error).message}`));
      }
    },
  });
}
