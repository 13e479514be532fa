import type { DuckDBConnection } from '@duckdb/node-api';
import { loadDuckDBHelper, type DuckDBHelperAddon } from './native-addon.js';

/**
 * Scalar functions whose values JS computes asynchronously (native/duckdb-async-scalar.c).
 *
 * A JS scalar function of @duckdb/node-api must fill its output before its callback
 * returns, so one that waits on the network blocks the event loop, and with it every other
 * request of the process. These functions run as C functions on DuckDB's own threads: each
 * chunk is handed to `evaluate` on the JS thread, DuckDB's thread waits (not the JS thread),
 * and the chunk's values go back when the promise settles. The cost: a chunk occupies one
 * engine thread while it waits; see docs/functions.md.
 */
export type AsyncScalarType = 'BOOLEAN' | 'INTEGER' | 'BIGINT' | 'FLOAT' | 'DOUBLE' | 'VARCHAR';

/** The C API's type ids (duckdb.h `duckdb_type`). */
const TYPE_IDS: Record<AsyncScalarType, number> = { BOOLEAN: 1, INTEGER: 4, BIGINT: 5, FLOAT: 10, DOUBLE: 11, VARCHAR: 17 };

export interface AsyncScalarSpec {
  readonly name: string;
  readonly parameterTypes: readonly AsyncScalarType[];
  readonly returnType: AsyncScalarType;
  /**
   * The values of one chunk: `columns[i][row]` is argument i of that row (null, boolean,
   * number, bigint for BIGINT, string). It answers one value a row, typed as the return type
   * (bigint for BIGINT), or rejects; the rejection's message is the query's error.
   */
  evaluate(columns: unknown[][], rowCount: number): Promise<unknown[]>;
}

interface AsyncScalarAddon extends DuckDBHelperAddon {
  define(name: string, parameterTypes: number[], returnType: number, handler: (columns: unknown[][], rowCount: number, ticket: unknown) => void): unknown;
  register(connection: unknown, definition: unknown): void;
  complete(ticket: unknown, values: unknown[] | null, error: string | null): void;
}

let addon: AsyncScalarAddon | undefined;

function helper(): AsyncScalarAddon {
  return (addon ??= loadDuckDBHelper<AsyncScalarAddon>('duckdb_async_scalar', 'remote functions need it to wait for their endpoints without blocking the runtime'));
}

/** One defined function, registered on each connection that should have it. */
export class AsyncScalarFunction {
  readonly name: string;
  readonly #definition: unknown;

  constructor(spec: AsyncScalarSpec) {
    this.name = spec.name;
    const native = helper();
    this.#definition = native.define(spec.name, spec.parameterTypes.map((type) => TYPE_IDS[type]), TYPE_IDS[spec.returnType], (columns, rowCount, ticket) => {
      // Every path answers the ticket: the engine thread waits for it.
      // A handler that throws at once fails its chunk like one that rejects.
      Promise.resolve().then(() => spec.evaluate(columns, rowCount)).then(
        (values) => native.complete(ticket, values, null),
        (error: unknown) => native.complete(ticket, null, error instanceof Error ? error.message : String(error)),
      );
    });
  }

  /** Adds the function to `connection` (as `connection.registerScalarFunction` does for JS functions). */
  registerOn(connection: DuckDBConnection): void {
    helper().register((connection as unknown as { connection: unknown }).connection, this.#definition);
  }
}
