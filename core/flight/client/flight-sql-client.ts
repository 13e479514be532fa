import { create, fromBinary, toBinary, type DescMessage, type MessageInitShape } from '@bufbuild/protobuf';
import { anyUnpack, AnySchema } from '@bufbuild/protobuf/wkt';
import { Table, type RecordBatch, type Schema } from 'apache-arrow';
import type { Metadata } from '@grpc/grpc-js';
import { packAny } from '../flight-any.js';
import {
  CancelFlightInfoRequestSchema,
  CancelFlightInfoResultSchema,
  CancelStatus,
  FlightDescriptor_DescriptorType,
  type FlightInfo,
} from '../generated/arrow/flight/protocol/flight_pb.js';
import * as sql from '../generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { decodeEncapsulatedSchema } from '../ipc/flight-message-reader.js';
import { FlightClient, type DoGetOptions, type FlightClientOptions, type FlightStream } from './flight-client.js';
import { PreparedStatement } from './prepared-statement.js';

export interface IngestOptions {
  readonly schema?: string;
  readonly catalog?: string;
  /** Defaults to append-into-existing (ADBC mode "append"). */
  readonly ifExists?: sql.CommandStatementIngest_TableDefinitionOptions_TableExistsOption;
  readonly ifNotExist?: sql.CommandStatementIngest_TableDefinitionOptions_TableNotExistOption;
}

/**
 * A typed Flight SQL client: queries (as Arrow Tables or batch streams), updates,
 * prepared statements, bulk ingest and the catalog commands.
 *
 *   const client = FlightSqlClient.connect({ endpoint: 'grpc://127.0.0.1:50051' });
 *   await client.handshake('', apiKey);                   // when API keys are on
 *   const { table } = await client.query('SELECT 1 AS x');
 */
export class FlightSqlClient {
  readonly flight: FlightClient;

  constructor(flight: FlightClient) {
    this.flight = flight;
  }

  static connect(options: FlightClientOptions): FlightSqlClient {
    return new FlightSqlClient(new FlightClient(options));
  }

  handshake(username: string, password: string): Promise<string | undefined> {
    return this.flight.handshake(username, password);
  }

  /** GetFlightInfo for any Flight SQL command (Any-packed into the descriptor). */
  commandInfo<Desc extends DescMessage>(schema: Desc, command: MessageInitShape<Desc>, extra?: Record<string, string>): Promise<FlightInfo> {
    return this.flight.getFlightInfo({ type: FlightDescriptor_DescriptorType.CMD, cmd: packAny(schema, command) }, extra);
  }

  /** Streams every endpoint of a FlightInfo (Quarry returns one). */
  async stream(info: FlightInfo, options: DoGetOptions = {}): Promise<FlightStream> {
    const endpoint = info.endpoint[0];
    if (!endpoint?.ticket) throw new Error('the FlightInfo has no endpoint with a ticket');
    return this.flight.doGet(endpoint.ticket.ticket, options);
  }

  async #table(info: FlightInfo, extra?: Record<string, string>): Promise<{ table: Table; headers: Metadata; info: FlightInfo }> {
    const stream = await this.stream(info, { headers: extra });
    const batches: RecordBatch[] = [];
    for await (const batch of stream.batches) batches.push(batch);
    return { table: batches.length > 0 ? new Table(batches) : new Table(stream.schema), headers: stream.headers, info };
  }

  /** Runs a query and reads the whole result. `headers` may carry `cache-control`. */
  async query(query: string, headers?: Record<string, string>): Promise<{ table: Table; headers: Metadata; info: FlightInfo }> {
    return this.#table(await this.commandInfo(sql.CommandStatementQuerySchema, { query }, headers), headers);
  }

  /** Runs a query and returns its batch stream (read it to the end, or cancel it). */
  async queryStream(query: string, options: DoGetOptions = {}): Promise<FlightStream> {
    const extra = options.headers ? { ...options.headers } : undefined;
    return this.stream(await this.commandInfo(sql.CommandStatementQuerySchema, { query }, extra), options);
  }

  /** The result schema of a query, without running it. */
  async querySchema(query: string): Promise<Schema> {
    return this.flight.getSchema({ type: FlightDescriptor_DescriptorType.CMD, cmd: packAny(sql.CommandStatementQuerySchema, { query }) });
  }

  /** Runs an INSERT/UPDATE/DELETE; resolves to the affected row count (-1 when unknown). */
  async executeUpdate(query: string): Promise<bigint> {
    const results = await this.flight.doPut({ type: FlightDescriptor_DescriptorType.CMD, cmd: packAny(sql.CommandStatementUpdateSchema, { query }) });
    return updateCount(results[0]?.appMetadata);
  }

  /** Appends batches to a dataset with CommandStatementIngest; resolves to the row count. */
  async ingest(table: string, upload: { schema: Schema; batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch> }, options: IngestOptions = {}): Promise<bigint> {
    const command = packAny(sql.CommandStatementIngestSchema, {
      table,
      schema: options.schema,
      catalog: options.catalog,
      tableDefinitionOptions: {
        ifExists: options.ifExists ?? sql.CommandStatementIngest_TableDefinitionOptions_TableExistsOption.APPEND,
        ifNotExist: options.ifNotExist ?? sql.CommandStatementIngest_TableDefinitionOptions_TableNotExistOption.FAIL,
      },
    });
    const results = await this.flight.doPut({ type: FlightDescriptor_DescriptorType.CMD, cmd: command }, upload);
    return updateCount(results[0]?.appMetadata);
  }

  async prepare(query: string): Promise<PreparedStatement> {
    const [result] = await this.flight.doAction('CreatePreparedStatement', packAny(sql.ActionCreatePreparedStatementRequestSchema, { query }));
    const created = unpack(result?.body, sql.ActionCreatePreparedStatementResultSchema);
    return new PreparedStatement(this, created.preparedStatementHandle, decodeEncapsulatedSchema(created.datasetSchema), decodeEncapsulatedSchema(created.parameterSchema));
  }

  /** Cancels the queries a FlightInfo started (CancelFlightInfo action); true when something was cancelled. */
  async cancel(info: FlightInfo): Promise<boolean> {
    const [result] = await this.flight.doAction('CancelFlightInfo', toBinary(CancelFlightInfoRequestSchema, create(CancelFlightInfoRequestSchema, { info })));
    return result !== undefined && fromBinary(CancelFlightInfoResultSchema, result.body).status === CancelStatus.CANCELLED;
  }

  // Catalog commands: each resolves to the whole result as an Arrow Table.
  getCatalogs() { return this.#metadata(sql.CommandGetCatalogsSchema, {}); }
  getDbSchemas(filter: MessageInitShape<typeof sql.CommandGetDbSchemasSchema> = {}) { return this.#metadata(sql.CommandGetDbSchemasSchema, filter); }
  getTables(filter: MessageInitShape<typeof sql.CommandGetTablesSchema> = {}) { return this.#metadata(sql.CommandGetTablesSchema, filter); }
  getTableTypes() { return this.#metadata(sql.CommandGetTableTypesSchema, {}); }
  getSqlInfo(info: number[] = []) { return this.#metadata(sql.CommandGetSqlInfoSchema, { info }); }
  getXdbcTypeInfo(dataType?: number) { return this.#metadata(sql.CommandGetXdbcTypeInfoSchema, { dataType }); }
  getPrimaryKeys(table: MessageInitShape<typeof sql.CommandGetPrimaryKeysSchema>) { return this.#metadata(sql.CommandGetPrimaryKeysSchema, table); }
  getExportedKeys(table: MessageInitShape<typeof sql.CommandGetExportedKeysSchema>) { return this.#metadata(sql.CommandGetExportedKeysSchema, table); }
  getImportedKeys(table: MessageInitShape<typeof sql.CommandGetImportedKeysSchema>) { return this.#metadata(sql.CommandGetImportedKeysSchema, table); }
  getCrossReference(tables: MessageInitShape<typeof sql.CommandGetCrossReferenceSchema>) { return this.#metadata(sql.CommandGetCrossReferenceSchema, tables); }

  async #metadata<Desc extends DescMessage>(schema: Desc, command: MessageInitShape<Desc>): Promise<Table> {
    return (await this.#table(await this.commandInfo(schema, command))).table;
  }

  close(): void {
    this.flight.close();
  }
}

/** Unpacks an Any-packed action result. */
export function unpack<Desc extends DescMessage>(bytes: Uint8Array | undefined, schema: Desc) {
  const message = bytes ? anyUnpack(fromBinary(AnySchema, bytes), schema) : undefined;
  if (!message) throw new Error(`the server's answer is not a ${schema.typeName}`);
  return message;
}

export function updateCount(appMetadata: Uint8Array | undefined): bigint {
  return appMetadata && appMetadata.byteLength > 0 ? fromBinary(sql.DoPutUpdateResultSchema, appMetadata).recordCount : -1n;
}
