import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { Schema, type RecordBatch } from 'apache-arrow';
import initSqlJs, { type Database, type SqlJsStatic } from 'sql.js';
import { QuarryError, toQuarryError } from '../../core/errors/quarry-error.js';
import type { ConnectorDataset, FetchSource, ScanRequest, ScanValue } from '../../core/engine/sources/connector.js';
import { pushdownSelect } from '../../core/engine/sources/pushdown-sql.js';
import { RecordBatchBuilder } from '../../core/engine/sources/record-batch-builder.js';
import { sqliteField, sqliteValue } from './sqlite-types.js';

/** Rows per Arrow batch handed to the engine. */
const BATCH_ROWS = 8192;

let sqlJs: Promise<SqlJsStatic> | undefined;

/**
 * A table of an existing SQLite file, read through sql.js (SQLite compiled to WASM: no native
 * build, so it installs offline). The file is read whole into WASM memory and kept while its
 * size and modification time stay the same, so a changed file is seen by the next scan.
 * Columns, filters and the limit are pushed down as SQL.
 */
export class SqliteSource implements FetchSource {
  readonly kind = 'fetch';
  /** The columns come from the local database file: `--check` may ask them. */
  readonly offlineSchema = true;
  readonly #dataset: ConnectorDataset;
  readonly #file: string;
  readonly #table: string;
  #open: { database: Database; version: string } | undefined;
  #schema: Schema | undefined;

  constructor(dataset: ConnectorDataset, file: string, table: string) {
    this.#dataset = dataset;
    this.#file = path.resolve(dataset.baseDirectory, file);
    this.#table = table;
  }

  async schema(): Promise<Schema> {
    const database = await this.#database();
    const columns = database.exec(`PRAGMA table_info(${quoteIdentifier(this.#table)})`)[0]?.values ?? [];
    if (columns.length === 0) {
      const tables = database.exec(`SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name`)[0]?.values.map((row) => String(row[0])) ?? [];
      throw new QuarryError('SQLITE_READ_FAILED', `dataset ${this.#dataset.name}: ${this.#file} has no table "${this.#table}" (tables: ${tables.join(', ') || 'none'})`);
    }
    this.#schema = new Schema(columns.map((column) => sqliteField(String(column[1]), String(column[2] ?? ''))));
    return this.#schema;
  }

  async *scan(request: ScanRequest): AsyncIterable<RecordBatch> {
    const schema = this.#schema ?? (await this.schema());
    const database = await this.#database();
    const { sql, parameters } = pushdownSelect({
      table: quoteIdentifier(this.#table),
      columns: schema.fields.map((field) => field.name),
      request,
      quoteIdentifier,
      placeholder: () => '?',
      bindValue,
    });
    this.#dataset.log.debug('sqlite query', { dataset: this.#dataset.name, sql });
    const wanted = (request.columns ?? schema.fields.map((field) => field.name)).map((name) => schema.fields.find((field) => field.name === name)!);
    const statement = database.prepare(sql, parameters as never);
    try {
      let builder = new RecordBatchBuilder(new Schema(wanted));
      while (statement.step()) {
        request.signal.throwIfAborted();
        const row = (statement.get as (params: null, options: { useBigInt: boolean }) => unknown[])(null, { useBigInt: true });
        builder.appendRow(wanted.map((field, index) => sqliteValue(field, row[index])));
        if (builder.rowCount >= BATCH_ROWS) {
          yield builder.flush();
          builder = new RecordBatchBuilder(new Schema(wanted));
        }
      }
      if (builder.rowCount > 0) yield builder.flush();
    } finally {
      statement.free();
    }
  }

  async #database(): Promise<Database> {
    let version: string;
    try {
      const info = await stat(this.#file);
      version = `${info.size}:${info.mtimeMs}`;
    } catch (error) {
      throw new QuarryError('SQLITE_READ_FAILED', `dataset ${this.#dataset.name}: cannot read SQLite file ${this.#file}: ${toQuarryError(error).message}`, { cause: error });
    }
    if (this.#open?.version === version) return this.#open.database;
    const SQL = await (sqlJs ??= initSqlJs());
    let database: Database;
    try {
      database = new SQL.Database(await readFile(this.#file));
      database.exec('SELECT count(*) FROM sqlite_master');
    } catch (error) {
      throw new QuarryError('SQLITE_READ_FAILED', `dataset ${this.#dataset.name}: ${this.#file} is not a readable SQLite database: ${toQuarryError(error).message}`, { cause: error });
    }
    this.#open?.database.close();
    this.#open = { database, version };
    return database;
  }

  async close(): Promise<void> {
    this.#open?.database.close();
    this.#open = undefined;
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** sql.js binds numbers, strings and bytes; the rest is converted to what SQLite compares it with. */
function bindValue(value: ScanValue): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  return value;
}
