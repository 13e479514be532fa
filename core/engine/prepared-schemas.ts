import { Field, Schema, Utf8 } from 'apache-arrow';
import { QuarryError } from '../errors/quarry-error.js';
import type { DuckDBPreparedStatement, DuckDBType } from '@duckdb/node-api';
import { arrowFieldFor, arrowSchemaForColumns } from './arrow/index.js';

/** The Arrow schema of a prepared statement's result, as DuckDB resolved it (no execution). */
export function preparedResultSchema(prepared: DuckDBPreparedStatement): Schema {
  const names: string[] = [];
  const types: DuckDBType[] = [];
  for (let index = 0; index < prepared.columnCount; index++) {
    names.push(prepared.columnName(index));
    try {
      types.push(prepared.columnType(index));
    } catch (error) {
      // The bindings know no TYPE values (`SELECT get_type(1)`): the column cannot be described, nor sent.
      throw new QuarryError('QUERY_FAILED', `result column "${names[index]}" has an engine type that cannot be sent as Arrow (${(error as Error).message}): cast it, e.g. to VARCHAR`);
    }
  }
  try {
    return arrowSchemaForColumns(names, types);
  } catch {
    // A column typed by an unbound parameter (`SELECT $1 + $2`) has no type until bound.
    return new Schema(names.map((name, index) => {
      try {
        return arrowFieldFor(name, types[index]!);
      } catch {
        return new Field(name, new Utf8(), true);
      }
    }));
  }
}

/**
 * One field per parameter, named `$1`, `$2`, ... DuckDB cannot type a parameter whose use
 * does not constrain it (`SELECT $1`); those are reported as Utf8, which the engine casts.
 */
export function preparedParameterSchema(prepared: DuckDBPreparedStatement): Schema {
  const fields: Field[] = [];
  for (let index = 1; index <= prepared.parameterCount; index++) {
    try {
      fields.push(arrowFieldFor(`$${index}`, prepared.parameterType(index)));
    } catch {
      fields.push(new Field(`$${index}`, new Utf8(), true));
    }
  }
  return new Schema(fields);
}
