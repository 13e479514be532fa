import { makeData, RecordBatch, Struct, Table, vectorFromArray, type Schema } from 'apache-arrow';
import type { Metadata as GrpcMetadata } from '@grpc/grpc-js';
import { packAny } from '../flight-any.js';
import { FlightDescriptor_DescriptorType } from '../generated/arrow/flight/protocol/flight_pb.js';
import * as sql from '../generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import type { FlightSqlClient } from './flight-sql-client.js';
import { updateCount } from './flight-sql-client.js';

/** A server-side prepared statement: bind parameters, run it as a query or an update, close it. */
export class PreparedStatement {
  readonly #client: FlightSqlClient;
  readonly handle: Uint8Array;
  readonly datasetSchema: Schema;
  readonly parameterSchema: Schema;

  constructor(client: FlightSqlClient, handle: Uint8Array, datasetSchema: Schema, parameterSchema: Schema) {
    this.#client = client;
    this.handle = handle;
    this.datasetSchema = datasetSchema;
    this.parameterSchema = parameterSchema;
  }

  #descriptor(kind: 'query' | 'update') {
    const cmd = kind === 'query'
      ? packAny(sql.CommandPreparedStatementQuerySchema, { preparedStatementHandle: this.handle })
      : packAny(sql.CommandPreparedStatementUpdateSchema, { preparedStatementHandle: this.handle });
    return { type: FlightDescriptor_DescriptorType.CMD, cmd };
  }

  /** A one-row batch of the values, typed by the parameter schema the server reported. */
  parameterBatch(values: readonly unknown[]): RecordBatch {
    const fields = this.parameterSchema.fields;
    if (values.length !== fields.length) throw new Error(`the statement takes ${fields.length} parameter(s), ${values.length} given`);
    const children = fields.map((field, index) => vectorFromArray([values[index]], field.type).data[0]!);
    return new RecordBatch(this.parameterSchema, makeData({ type: new Struct(fields), length: 1, nullCount: 0, children }));
  }

  /** Binds positional values (DoPut with CommandPreparedStatementQuery). */
  async bind(values: readonly unknown[] | RecordBatch): Promise<void> {
    const batch = values instanceof RecordBatch ? values : this.parameterBatch(values);
    await this.#client.flight.doPut(this.#descriptor('query'), { schema: batch.schema, batches: [batch] });
  }

  /** Runs the statement (with the bound parameters) and reads the result. */
  async query(): Promise<{ table: Table; headers: GrpcMetadata }> {
    const info = await this.#client.flight.getFlightInfo(this.#descriptor('query'));
    const stream = await this.#client.stream(info);
    const batches: RecordBatch[] = [];
    for await (const batch of stream.batches) batches.push(batch);
    return { table: batches.length > 0 ? new Table(batches) : new Table(stream.schema), headers: stream.headers };
  }

  /** Runs the statement as an update, once per parameter row given (or once with none). */
  async executeUpdate(rows?: RecordBatch): Promise<bigint> {
    const results = await this.#client.flight.doPut(this.#descriptor('update'), rows ? { schema: rows.schema, batches: [rows] } : undefined);
    return updateCount(results[0]?.appMetadata);
  }

  async close(): Promise<void> {
    await this.#client.flight.doAction('ClosePreparedStatement', packAny(sql.ActionClosePreparedStatementRequestSchema, { preparedStatementHandle: this.handle }));
  }
}

