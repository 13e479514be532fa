import { create, toBinary } from '@bufbuild/protobuf';
import type { ServerDuplexStream } from '@grpc/grpc-js';
import type { RecordBatch } from 'apache-arrow';
import { QuarryError } from '../../errors/quarry-error.js';
import type { InboundRequest } from '../../pipeline/types.js';
import { buildInbound } from '../call-admission.js';
import { duplexStream, incoming, routeOf } from '../call-handlers.js';
import { decodeFlightData, type DecodedFlightData } from '../flight-data.js';
import type { FlightContext } from '../flight-context.js';
import { PutResultSchema, type PutResult } from '../generated/arrow/flight/protocol/flight_pb.js';
import { DoPutPreparedStatementResultSchema, DoPutUpdateResultSchema } from '../generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { readRecordBatches, type InboundIpcMessage } from '../ipc/flight-message-reader.js';
import { rowParameters } from '../parameters-from-arrow.js';
import { appendToDataset } from './dataset-append.js';
import { putTarget, putWrites } from './put-target.js';

function decode(bytes: Buffer): DecodedFlightData {
  try {
    return decodeFlightData(bytes);
  } catch (error) {
    throw new QuarryError('FLIGHT_COMMAND_INVALID', `a DoPut message is not FlightData: ${(error as Error).message}`, { cause: error });
  }
}

function updateResult(recordCount: bigint): PutResult {
  return create(PutResultSchema, { appMetadata: toBinary(DoPutUpdateResultSchema, create(DoPutUpdateResultSchema, { recordCount })) });
}

/**
 * DoPut: SQL updates (plain and prepared), parameter binding for prepared queries, and
 * appends into datasets (CommandStatementIngest or a PATH descriptor). The descriptor in
 * the first message decides; admission runs then, with `write` set unless the stream only
 * binds parameters, and the per-caller rate limit applies to every DoPut.
 */
export function doPutHandler(context: FlightContext) {
  return duplexStream<Buffer, PutResult>(context, 'DoPut', async (call: ServerDuplexStream<Buffer, PutResult>, { signal, admit }) => {
    const messages = incoming(call);
    const firstRaw = await messages.next();
    if (firstRaw.done) throw new QuarryError('FLIGHT_COMMAND_INVALID', 'DoPut received no message: the first FlightData must carry the FlightDescriptor');
    const first = decode(firstRaw.value);
    if (!first.descriptor) throw new QuarryError('FLIGHT_COMMAND_INVALID', 'the first DoPut message carries no FlightDescriptor');
    const target = putTarget(context, first.descriptor);
    const inbound = await admit(buildInbound(call, routeOf('DoPut'), { write: putWrites(target) }));
    const principalId = inbound.principal.id;
    context.rateLimiter?.admit(principalId);
    context.rateLimiter?.meter(principalId, firstRaw.value.byteLength);

    // The rest of the stream, as IPC messages; every byte counts against the caller's budget.
    async function* uploaded(): AsyncGenerator<InboundIpcMessage> {
      if (first.header.byteLength > 0) yield { header: first.header, body: first.body };
      for (;;) {
        const next = await messages.next();
        if (next.done) return;
        context.rateLimiter?.meter(principalId, next.value.byteLength);
        const message = decode(next.value);
        if (message.header.byteLength > 0) yield { header: message.header, body: message.body };
      }
    }

    context.stats.activeUploads += 1;
    try {
      switch (target.kind) {
        case 'update': {
          // Answered without waiting for the client to finish its (empty) upload: some
          // drivers read the PutResult before half-closing.
          call.write(updateResult(await executeUpdate(context, inbound, signal, target.sql, [])));
          return;
        }
        case 'prepared-update': {
          const prepared = context.statements.prepared(target.handle, principalId);
          const rows = await parameterRows(uploaded());
          let total = 0n;
          let known = true;
          for (const parameters of rows.length > 0 ? rows : [prepared.parameters]) {
            const count = await executeUpdate(context, inbound, signal, prepared.sql, parameters);
            if (count < 0n) known = false;
            else total += count;
          }
          call.write(updateResult(known ? total : -1n));
          return;
        }
        case 'bind-parameters': {
          const prepared = context.statements.prepared(target.handle, principalId);
          const rows = await parameterRows(uploaded());
          const parameters = rows[0] ?? [];
          if (parameters.length !== prepared.parameterCount) {
            throw new QuarryError('PARAMETERS_INVALID', `the prepared statement has ${prepared.parameterCount} parameter(s) but the bound record batch has ${parameters.length} column(s)`);
          }
          prepared.parameters = parameters;
          const result = toBinary(DoPutPreparedStatementResultSchema, create(DoPutPreparedStatementResultSchema, { preparedStatementHandle: target.handle }));
          call.write(create(PutResultSchema, { appMetadata: result }));
          return;
        }
        case 'append': {
          const upload = await readRecordBatches(uploaded());
          const rows = await appendToDataset(context, target.dataset, upload, { principal: inbound.principal, signal });
          call.write(updateResult(BigInt(rows)));
          return;
        }
      }
    } finally {
      context.stats.activeUploads -= 1;
    }
  });
}

/** Every row of the uploaded parameter batches, as positional values (none for an empty upload). */
async function parameterRows(messages: AsyncIterable<InboundIpcMessage>): Promise<unknown[][]> {
  const iterator = messages[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return [];
  async function* all(): AsyncGenerator<InboundIpcMessage> {
    yield first.value as InboundIpcMessage;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const upload = await readRecordBatches(all());
  const rows: unknown[][] = [];
  for await (const batch of upload.batches as AsyncIterable<RecordBatch>) {
    for (let row = 0; row < batch.numRows; row++) rows.push(rowParameters(batch, row));
  }
  return rows;
}

/** Runs a write through the pipeline; DuckDB reports the affected rows in a `Count` column (-1 when absent). */
async function executeUpdate(context: FlightContext, inbound: InboundRequest, signal: AbortSignal, sql: string, parameters: readonly unknown[]): Promise<bigint> {
  const { result } = await context.pipeline.execute({ sql, parameters, protocol: 'flight', principal: inbound.principal, inbound, signal });
  let count = 0n;
  let known = false;
  for await (const batch of result.batches) {
    if (batch.schema.fields[0]?.name !== 'Count') continue;
    known = true;
    const column = batch.getChildAt(0)!;
    for (let row = 0; row < batch.numRows; row++) count += BigInt((column.get(row) as bigint | number | null) ?? 0);
  }
  return known ? count : -1n;
}
