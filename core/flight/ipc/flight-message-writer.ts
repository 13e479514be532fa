import { Message, MessageHeader, RecordBatch, RecordBatchStreamWriter, type Schema } from 'apache-arrow';

/**
 * Encoded schema messages, by schema object. Encoding a schema's flatbuffer costs 0.1–0.3 ms
 * for a few columns; a statement run again hands over the same Schema object (ResultShapes),
 * so its FlightInfo and DoGet reuse the bytes. Schemas are not modified once made; the bytes
 * are copied into each FlightData, never written to.
 */
const encodedSchemas = new WeakMap<Schema, Uint8Array>();

function schemaFlatbuffer(schema: Schema, encode: () => Uint8Array): Uint8Array {
  let bytes = encodedSchemas.get(schema);
  if (bytes === undefined) encodedSchemas.set(schema, (bytes = encode()));
  return bytes;
}

/** One Arrow IPC message split the way FlightData carries it. */
export interface IpcMessage {
  readonly kind: 'schema' | 'dictionary' | 'record-batch';
  /** The flatbuffer Message: FlightData.data_header. */
  readonly header: Uint8Array;
  /** The body buffers and their padding, as views of the batch's own memory (no copy). */
  readonly body: Uint8Array[];
  bodyLength: number;
}

/**
 * Arrow's own IPC stream writer, stopped one step short of a byte stream: instead of the
 * continuation marker + length + flatbuffer + body it would concatenate, each message is
 * captured as (header, body chunks) so FlightData can be framed around it without an
 * intermediate copy. Dictionaries, body layout and alignment stay Arrow's.
 *
 * Overrides the writer's protected `_writeMessage`/`_write`/`_writeFooter` (typed in
 * apache-arrow's declarations; checked against apache-arrow 21).
 */
export class FlightMessageWriter extends RecordBatchStreamWriter {
  #messages: IpcMessage[] = [];
  #current: IpcMessage | undefined;

  /** The schema message; call once before the first batch. */
  schemaMessages(schema: Schema): IpcMessage[] {
    this.reset(undefined, schema);
    return this.#take();
  }

  /** Dictionary messages (when the batch brings new dictionaries) then the record batch message. */
  batchMessages(batch: RecordBatch): IpcMessage[] {
    this.write(batch);
    return this.#take();
  }

  #take(): IpcMessage[] {
    const messages = this.#messages;
    this.#messages = [];
    this.#current = undefined;
    return messages;
  }

  protected override _writeMessage<T extends MessageHeader>(message: Message<T>): this {
    const kind = message.headerType === MessageHeader.Schema ? 'schema' : message.headerType === MessageHeader.DictionaryBatch ? 'dictionary' : 'record-batch';
    const header = kind === 'schema' ? schemaFlatbuffer(message.header() as Schema, () => Message.encode(message)) : Message.encode(message);
    this.#current = { kind, header, body: [], bodyLength: 0 };
    this.#messages.push(this.#current);
    return this;
  }

  protected override _write(chunk: ArrayBufferView | ArrayLike<number> | Iterable<number> | ArrayBufferLike | string | null | undefined): this {
    // Only body buffers and their padding reach here: prefixes are not written (see above).
    if (!this.#current || chunk === null || chunk === undefined || typeof chunk === 'string') return this;
    const bytes = ArrayBuffer.isView(chunk) ? new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength) : new Uint8Array(chunk as ArrayLike<number>);
    if (bytes.byteLength === 0) return this;
    this.#current.body.push(bytes);
    this.#current.bodyLength += bytes.byteLength;
    return this;
  }

  protected override _writeFooter(): this {
    return this;
  }
}

/**
 * A schema as FlightInfo.schema, SchemaResult.schema and the prepared-statement schemas
 * want it: the IPC-encapsulated message (continuation marker, padded length, flatbuffer).
 */
export function encapsulatedSchema(schema: Schema): Uint8Array {
  const flatbuffer = schemaFlatbuffer(schema, () => Message.encode(Message.from(schema)));
  const padded = (flatbuffer.byteLength + 7) & ~7;
  const output = new Uint8Array(8 + padded);
  const view = new DataView(output.buffer);
  view.setInt32(0, -1, true);
  view.setInt32(4, padded, true);
  output.set(flatbuffer, 8);
  return output;
}
