import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import { QuarryError } from '../errors/quarry-error.js';

/**
 * Binds positional parameters (`$1`, `$2`, ...) from JSON-like values: integers as BIGINT,
 * other numbers as DOUBLE, strings, booleans, null, bigints. The statement's own casts
 * (`$1::DATE`) turn strings into other types.
 */
export function bindParameters(prepared: DuckDBPreparedStatement, parameters: readonly unknown[]): void {
  const expected = prepared.parameterCount;
  if (parameters.length !== expected) {
    throw new QuarryError(
      'PARAMETERS_INVALID',
      `the statement has ${expected} placeholder${expected === 1 ? '' : 's'}${expected > 0 ? ` ($1..$${expected})` : ''} but ${parameters.length} parameter${parameters.length === 1 ? ' was' : 's were'} given`,
    );
  }
  parameters.forEach((value, offset) => {
    const index = offset + 1;
    if (value === null || value === undefined) prepared.bindNull(index);
    else if (typeof value === 'boolean') prepared.bindBoolean(index, value);
    else if (typeof value === 'bigint') prepared.bindBigInt(index, value);
    else if (typeof value === 'number') {
      if (Number.isSafeInteger(value)) prepared.bindBigInt(index, BigInt(value));
      else if (Number.isFinite(value)) prepared.bindDouble(index, value);
      else throw new QuarryError('PARAMETERS_INVALID', `parameter $${index} is ${value}; parameters must be finite numbers`);
    } else if (typeof value === 'string') prepared.bindVarchar(index, value);
    else {
      throw new QuarryError(
        'PARAMETERS_INVALID',
        `parameter $${index} is ${Array.isArray(value) ? 'an array' : 'an object'}; parameters must be strings, numbers, booleans or null (cast in SQL, e.g. $${index}::DATE)`,
      );
    }
  });
}
