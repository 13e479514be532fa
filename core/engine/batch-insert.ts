import { randomBytes } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RecordBatch } from 'apache-arrow';
import { QuarryError } from '../errors/quarry-error.js';
import { fillChunk, mapColumns, type ChunkColumns } from './append.js';
import { DuckDBTableFunction, VARCHAR } from './duckdb-api.js';
import { quoteIdentifier, quoteLiteral } from './sql-text.js';

/**
 * Rows handed to DuckDB per call of the scan, each call one stretch of the main thread (~2 ms
 * for task rows here). Fewer rows per call cost more calls: 64 and 256 gave 10–15% fewer cache
 * hits per second under load than 1,024; 2,048 (a whole vector) was no faster.
 */
const ROWS_PER_CALL = 1024;

interface PendingInsert {
  readonly batch: RecordBatch;
  readonly columns: ChunkColumns;
  offset: number;
}

/**
 * Inserts in-memory Arrow batches with one `INSERT INTO t (...) SELECT * FROM <scan>(token)`,
 * where `<scan>` is a table function that hands DuckDB the batch's rows, a slice per call.
 *
 * The appender does the same copy into DuckDB's vectors, but its flush (the rows moved into
 * the table's storage, ~1 µs a row for a row of strings and a map) runs synchronously on the
 * calling thread: the JS main thread, in one stretch per append. Here the statement runs on
 * the engine's threads, which call into JS only to fill each slice; the flush and the commit
 * never block the event loop. For small tables written often (task history: a row per query).
 *
 * The function is registered once per database under a random name, and each statement names
 * its rows by a random token: SQL that calls the function without a live token gets an error,
 * never rows. Inserts run one at a time on a connection of their own (a DuckDB connection runs
 * one statement at a time), opened on the first.
 */
export class BatchInserter {
  readonly #name = `quarry_batch_scan_${randomBytes(8).toString('hex')}`;
  readonly #pending = new Map<string, PendingInsert>();
  readonly #columns = new Map<string, { names: string[]; types: ChunkColumns['types'] }>();
  readonly #connect: () => Promise<DuckDBConnection>;
  #connection: DuckDBConnection | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closing = false;

  constructor(connect: () => Promise<DuckDBConnection>) {
    this.#connect = connect;
  }

  /**
   * Inserts the batch into `schema.name` of the default database, columns matched by name;
   * table columns the batch lacks get their default. Resolves with the rows inserted.
   */
  insert(table: { schema: string; name: string }, batch: RecordBatch): Promise<number> {
    const run = this.#queue.then(async () => {
      if (this.#closing) throw new QuarryError('RUNTIME_SHUTTING_DOWN', 'the engine is closing and takes no more rows');
      if (this.#connection === undefined) {
        const connection = await this.#connect();
        this.#register(connection);
        this.#connection = connection;
      }
      return this.#insertOn(this.#connection, table, batch);
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Takes no more inserts, waits (bounded) for the one under way, closes the connection; false if it was still running. */
  async close(waitMs: number): Promise<boolean> {
    this.#closing = true;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      this.#queue.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
    ]);
    clearTimeout(timer);
    if (!finished) return false;
    this.#connection?.closeSync();
    this.#connection = undefined;
    return true;
  }

  async #insertOn(connection: DuckDBConnection, table: { schema: string; name: string }, batch: RecordBatch): Promise<number> {
    const target = await this.#targetColumns(connection, table);
    const sourceIndexes = mapColumns(batch.schema, target.names, `${table.schema}.${table.name}`);
    const used = target.names.flatMap((name, index) => (sourceIndexes[index] === undefined ? [] : [index]));
    const columns: ChunkColumns = {
      names: used.map((index) => target.names[index]!),
      types: used.map((index) => target.types[index]!),
      sourceIndexes: used.map((index) => sourceIndexes[index]),
    };
    const token = randomBytes(16).toString('hex');
    this.#pending.set(token, { batch, columns, offset: 0 });
    try {
      const list = columns.names.map(quoteIdentifier).join(', ');
      const result = await connection.run(`INSERT INTO ${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)} (${list}) SELECT * FROM ${this.#name}(${quoteLiteral(token)})`);
      return Number(result.rowsChanged);
    } finally {
      this.#pending.delete(token);
    }
  }

  async #targetColumns(connection: DuckDBConnection, table: { schema: string; name: string }): Promise<{ names: string[]; types: ChunkColumns['types'] }> {
    const key = `${table.schema}.${table.name}`;
    const known = this.#columns.get(key);
    if (known) return known;
    const prepared = await connection.prepare(`SELECT * FROM ${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)} LIMIT 0`);
    try {
      const indexes = Array.from({ length: prepared.columnCount }, (_, index) => index);
      const found = { names: indexes.map((index) => prepared.columnName(index)), types: indexes.map((index) => prepared.columnType(index)) };
      this.#columns.set(key, found);
      return found;
    } finally {
      prepared.destroySync();
    }
  }

  #register(connection: DuckDBConnection): void {
    const pending = this.#pending;
    connection.registerTableFunction(DuckDBTableFunction.create({
      name: this.#name,
      parameterTypes: [VARCHAR],
      bindFunction: (info) => {
        const insert = pending.get(String(info.getParameter(0)));
        if (insert === undefined) {
          info.setError(`${this.#name}() is internal to the engine (it feeds one INSERT its rows) and cannot be called from SQL`);
          return;
        }
        insert.columns.names.forEach((name, index) => info.addResultColumn(name, insert.columns.types[index]!));
        info.setCardinality(insert.batch.numRows, true);
        info.setBindData(insert);
      },
      initFunction: (info) => info.setMaxThreads(1),
      mainFunction: (info, output) => {
        const insert = info.bindData as PendingInsert;
        const count = Math.min(ROWS_PER_CALL, insert.batch.numRows - insert.offset);
        output.rowCount = count;
        if (count === 0) return;
        try {
          fillChunk(output, insert.columns, insert.batch, insert.offset, count);
        } catch (error) {
          info.setError(error instanceof QuarryError ? error.message : `rows could not be copied: ${(error as Error).message}`);
          return;
        }
        insert.offset += count;
      },
    }));
  }
}
