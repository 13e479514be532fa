import { Schema, type RecordBatch } from 'apache-arrow';
import pg from 'pg';
import Cursor from 'pg-cursor';
import { QuarryError, toQuarryError } from '../../core/errors/quarry-error.js';
import type { ConnectorDataset, FetchSource, ScanRequest, ScanValue } from '../../core/engine/sources/connector.js';
import { pushdownSelect } from '../../core/engine/sources/pushdown-sql.js';
import { RecordBatchBuilder } from '../../core/engine/sources/record-batch-builder.js';
import { sslOption, type SslMode } from './connection-options.js';
import { postgresColumn, type PostgresColumn } from './postgres-types.js';

/** Rows fetched per cursor read, and per Arrow batch: the table is never held in JS whole. */
const BATCH_ROWS = 8192;
const CONNECT_TIMEOUT_MS = 15_000;

/** Every value arrives as PostgreSQL's text form; postgres-types.ts converts it exactly. */
const textTypes = { getTypeParser: () => (text: string) => text } as unknown as pg.CustomTypesConfig;

/**
 * A PostgreSQL table or view read with `pg`. Each scan opens a connection, runs one SELECT
 * (columns, filters and limit pushed down as parameterised SQL) through a cursor, and hands
 * over Arrow batches of BATCH_ROWS rows.
 */
export class PostgresSource implements FetchSource {
  readonly kind = 'fetch';
  readonly #dataset: ConnectorDataset;
  readonly #config: pg.ClientConfig;
  readonly #sslMode: SslMode;
  readonly #table: string;
  #columns: PostgresColumn[] | undefined;

  constructor(dataset: ConnectorDataset, options: { config: pg.ClientConfig; sslMode: SslMode; table: readonly string[] }) {
    this.#dataset = dataset;
    this.#config = options.config;
    this.#sslMode = options.sslMode;
    this.#table = options.table.map(quoteIdentifier).join('.');
  }

  async schema(): Promise<Schema> {
    const columns = await this.#withClient(async (client) => {
      const result = await client.query({ text: `SELECT * FROM ${this.#table} LIMIT 0`, types: textTypes });
      return result.fields.map((field) => postgresColumn(field.name, field.dataTypeID, field.dataTypeModifier));
    });
    this.#columns = columns;
    return new Schema(columns.map((column) => column.field));
  }

  /** PostgreSQL's own estimate (`pg_class.reltuples`, kept by ANALYZE and autovacuum); undefined for a view or a table never analysed. */
  async estimateRows(): Promise<number | undefined> {
    const estimate = await this.#withClient((client) => client.query<{ rows: string | null }>({ text: 'SELECT reltuples::bigint::text AS rows FROM pg_class WHERE oid = to_regclass($1) AND relkind IN (\'r\', \'p\', \'m\')', values: [this.#table], types: textTypes }));
    const rows = Number(estimate.rows[0]?.rows ?? Number.NaN);
    return Number.isFinite(rows) && rows >= 0 ? rows : undefined;
  }

  async *scan(request: ScanRequest): AsyncIterable<RecordBatch> {
    if (!this.#columns) await this.schema();
    const all = this.#columns!;
    const wanted = (request.columns ?? all.map((column) => column.field.name)).map((name) => all.find((column) => column.field.name === name)!);
    const { sql, parameters } = pushdownSelect({
      table: this.#table,
      columns: all.map((column) => column.field.name),
      request,
      quoteIdentifier,
      placeholder: (position) => `$${position}`,
      bindValue,
    });
    this.#dataset.log.debug('postgres query', { dataset: this.#dataset.name, sql });
    const client = await this.#connect();
    try {
      const cursor = client.query(new Cursor(sql, parameters, { rowMode: 'array', types: textTypes }));
      const schema = new Schema(wanted.map((column) => column.field));
      for (;;) {
        request.signal.throwIfAborted();
        const rows = (await this.#failures(cursor.read(BATCH_ROWS))) as Array<Array<string | null>>;
        if (rows.length === 0) break;
        const builder = new RecordBatchBuilder(schema);
        for (const row of rows) builder.appendRow(wanted.map((column, index) => convertValue(column, row[index] ?? null)));
        yield builder.flush();
      }
      await cursor.close();
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async #withClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = await this.#connect();
    try {
      return await this.#failures(work(client));
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** libpq's `prefer`: TLS when the server offers it, else plain. */
  async #connect(): Promise<pg.Client> {
    try {
      return await this.#connectWith(sslOption(this.#sslMode));
    } catch (error) {
      if (this.#sslMode === 'prefer' && /does not support SSL/i.test(toQuarryError(error).message)) return this.#connectWith(false);
      throw this.#readFailed(error);
    }
  }

  async #connectWith(ssl: pg.ClientConfig['ssl']): Promise<pg.Client> {
    const client = new pg.Client({ ...this.#config, ssl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query(`SET TimeZone = 'UTC'; SET DateStyle = 'ISO'; SET extra_float_digits = 3`);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    return client;
  }

  async #failures<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      throw this.#readFailed(error);
    }
  }

  #readFailed(error: unknown): QuarryError {
    if (error instanceof QuarryError) return error;
    const message = toQuarryError(error).message || (error as { code?: string }).code || 'unknown error';
    const where = this.#config.host ? `${this.#config.host}:${this.#config.port ?? 5432}` : 'the server of pg_connection_string';
    return new QuarryError('POSTGRES_READ_FAILED', `dataset ${this.#dataset.name}: PostgreSQL at ${where}: ${message}`, { cause: error });
  }
}

function convertValue(column: PostgresColumn, text: string | null): unknown {
  if (text === null) return null;
  try {
    return column.convert(text);
  } catch (error) {
    throw new QuarryError('POSTGRES_READ_FAILED', `column "${column.field.name}": ${(error as Error).message}`);
  }
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Filter values bound as text PostgreSQL casts to the column's type. */
function bindValue(value: ScanValue): unknown {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'bigint') return value.toString();
  return value;
}
