import { Message, RecordBatchReader, Schema, type RecordBatch } from 'apache-arrow';
import { QuarryError } from '../../errors/quarry-error.js';

export interface InboundIpcMessage {
  readonly header: Uint8Array;
  readonly body: Uint8Array;
}

/**
 * Turns FlightData (header, body) pairs back into an Arrow IPC stream and reads it with
 * Arrow's reader, so dictionaries and every type Arrow knows are handled the same way as
 * an IPC file. Messages without a header (app_metadata only) are skipped by the caller.
 */
export async function readRecordBatches(messages: AsyncIterable<InboundIpcMessage>): Promise<{ schema: Schema; batches: AsyncIterable<RecordBatch> }> {
  // Errors of the message source (a gRPC status, a cancelled call) pass through untouched;
  // only what Arrow's reader rejects is reported as a malformed upload.
  let sourceError: unknown;
  async function* guarded(): AsyncGenerator<Uint8Array> {
    try {
      yield* ipcStream(messages);
    } catch (error) {
      sourceError = error;
      throw error;
    }
  }
  const reader = await RecordBatchReader.from(guarded());
  try {
    await reader.open();
  } catch (error) {
    if (sourceError !== undefined) throw sourceError;
    throw new QuarryError('FLIGHT_COMMAND_INVALID', `the uploaded FlightData is not an Arrow IPC stream: ${(error as Error).message}`, { cause: error });
  }
  if (!reader.schema) throw new QuarryError('FLIGHT_COMMAND_INVALID', 'the upload carried no Arrow schema message');
  return { schema: reader.schema, batches: reader };
}

async function* ipcStream(messages: AsyncIterable<InboundIpcMessage>): AsyncGenerator<Uint8Array> {
  for await (const message of messages) {
    const padded = (message.header.byteLength + 7) & ~7;
    const prefix = new Uint8Array(8 + padded);
    const view = new DataView(prefix.buffer);
    view.setInt32(0, -1, true);
    view.setInt32(4, padded, true);
    prefix.set(message.header, 8);
    yield prefix;
    if (message.body.byteLength > 0) yield message.body;
  }
  yield new Uint8Array([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
}

/** Decodes an IPC-encapsulated schema (FlightInfo.schema, prepared statement schemas); empty bytes → empty schema. */
export function decodeEncapsulatedSchema(bytes: Uint8Array): Schema {
  if (bytes.byteLength === 0) return new Schema([]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  if (view.getInt32(0, true) === -1) offset = 4;
  const length = view.getInt32(offset, true);
  const message = Message.decode(bytes.subarray(offset + 4, offset + 4 + length));
  const schema = message.header();
  if (!(schema instanceof Schema)) throw new QuarryError('FLIGHT_COMMAND_INVALID', 'the bytes are not an Arrow schema message');
  return schema;
}
