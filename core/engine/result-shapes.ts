import type { DuckDBPreparedStatement } from '@duckdb/node-api';
import type { Schema } from 'apache-arrow';
import type { ResultShape } from './arrow/record-batch-stream.js';

/**
 * The result shape (column types, Arrow schema) of each kept prepared statement, so the next
 * run of the statement neither asks the bindings for every column's type nor builds its schema
 * again, and hands the doors the same Schema object, whose encoded IPC message they keep
 * (flight-message-writer.ts). Only statements without parameters: a parameter's bound type can
 * change the result's types from one run to the next. Keyed by the statement object: a
 * statement the cache drops (a refresh, a registration) takes its shape with it.
 */
export class ResultShapes {
  readonly #shapes = new WeakMap<DuckDBPreparedStatement, ResultShape>();
  readonly #preparedSchemas = new WeakMap<DuckDBPreparedStatement, Schema>();

  get(prepared: DuckDBPreparedStatement): ResultShape | undefined {
    return this.#shapes.get(prepared);
  }

  remember(prepared: DuckDBPreparedStatement, shape: ResultShape): void {
    if (prepared.parameterCount === 0) this.#shapes.set(prepared, shape);
  }

  /** The schema the statement's preparation resolved (what Flight's GetFlightInfo answers), made once per statement. */
  preparedSchema(prepared: DuckDBPreparedStatement, make: (prepared: DuckDBPreparedStatement) => Schema): Schema {
    if (prepared.parameterCount > 0) return make(prepared);
    let schema = this.#preparedSchemas.get(prepared);
    if (schema === undefined) this.#preparedSchemas.set(prepared, (schema = make(prepared)));
    return schema;
  }
}
