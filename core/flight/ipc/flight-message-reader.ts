import { Message, MessageHeader, RecordBatch, Schema, Struct, Vector, makeData, type DataType } from 'apache-arrow';
import { VectorLoader } from 'apache-arrow/visitor/vectorloader';
import { LRUCache } from 'lru-cache';
import { alignedBytes } from '../../engine/arrow/aligned-bytes.js';
import { recordBatchOf } from '../../engine/arrow/record-batch-of.js';
import { QuarryError } from '../../errors/quarry-error.js';

export interface InboundIpcMessage {
  readonly header: Uint8Array;
  readonly body: Uint8Array;
}

/**
 * Reads FlightData (header, body) pairs as an Arrow IPC stream: the schema message first,
 * then dictionary and record batches. Each message is loaded where it lies, with Arrow's own
 * vector loader (every type Arrow reads, dictionaries and their deltas included), instead of
 * being re-framed as an IPC byte stream for Arrow's stream reader: that reader's async byte
 * plumbing cost ~1 ms per call, most of a small answer's time. Messages without a header
 * (app_metadata only) are skipped by the caller.
 */
export async function readRecordBatches(messages: AsyncIterable<InboundIpcMessage>): Promise<{ schema: Schema; batches: AsyncIterable<RecordBatch> }> {
  // Errors of the message source (a gRPC status, a cancelled call) pass through untouched;
  // only what is not Arrow IPC is reported as a malformed stream.
  const iterator = messages[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw invalid('the FlightData stream carried no Arrow schema message');
  const known = decodedSchemas.get(schemaKey(first.value.header));
  const opening = known === undefined ? decode(first.value.header) : undefined;
  if (opening !== undefined && !opening.isSchema()) {
    await iterator.return?.();
    if (opening.isRecordBatch() || opening.isDictionaryBatch()) throw invalid(`the first FlightData message must be an Arrow schema, not a ${opening.isRecordBatch() ? 'record batch' : 'dictionary batch'}`);
    throw notIpc(opening);
  }
  const schema = known ?? rememberSchema(first.value.header, (opening as Message<MessageHeader.Schema>).header());
  const loader = new BatchLoader(schema);
  async function* batches(): AsyncGenerator<RecordBatch> {
    let produced = 0;
    try {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        const message = decode(next.value.header);
        if (message.isRecordBatch()) {
          produced += 1;
          yield loader.recordBatch(message.header(), bodyOf(next.value, message.bodyLength), message.metadata);
        } else if (message.isDictionaryBatch()) {
          loader.dictionaryBatch(message.header(), bodyOf(next.value, message.bodyLength));
        } else if (message.isSchema()) {
          throw invalid('a FlightData stream carries one schema message, at its start');
        } else {
          throw notIpc(message);
        }
      }
      // As Arrow's stream reader does: a stream with a schema and no batch reads as one empty batch.
      if (produced === 0) yield emptyBatch(schema);
    } finally {
      await iterator.return?.();
    }
  }
  return { schema, batches: batches() };
}

type RecordBatchHeader = ReturnType<Message<MessageHeader.RecordBatch>['header']>;
type DictionaryBatchHeader = ReturnType<Message<MessageHeader.DictionaryBatch>['header']>;

/** What Arrow's stream reader keeps between messages: the schema and the dictionaries so far. */
class BatchLoader {
  readonly #schema: Schema;
  readonly #struct: Struct;
  readonly #dictionaries = new Map<number, Vector>();

  constructor(schema: Schema) {
    this.#schema = schema;
    this.#struct = new Struct(schema.fields);
  }

  recordBatch(header: RecordBatchHeader, body: Uint8Array, metadata: Map<string, string>): RecordBatch {
    uncompressed(header.compression);
    const children = this.#load(header, body, this.#schema.fields);
    const data = makeData({ type: this.#struct, length: header.length, children });
    // Arrow's constructor pads columns shorter than the batch with nulls (and copies the
    // schema); a well-formed batch, every column as long as the batch, keeps the stream's.
    return children.every((child) => child.length === header.length) ? recordBatchOf(this.#schema, data, metadata) : new RecordBatch(this.#schema, data, metadata);
  }

  dictionaryBatch(header: DictionaryBatchHeader, body: Uint8Array): void {
    uncompressed(header.data.compression);
    const type = this.#schema.dictionaries.get(header.id);
    if (type === undefined) throw invalid(`a dictionary batch has id ${header.id}, which no field of the schema uses`);
    const [data] = this.#load(header.data, body, [type]);
    const previous = this.#dictionaries.get(header.id);
    const vector = previous && header.isDelta ? previous.concat(new Vector([data!])) : new Vector([data!]);
    this.#dictionaries.set(header.id, vector.memoize());
  }

  #load(header: RecordBatchHeader, body: Uint8Array, types: ReadonlyArray<Schema['fields'][number] | DataType>) {
    try {
      return new VectorLoader(body, header.nodes, header.buffers, this.#dictionaries, this.#schema.metadataVersion, header.variadicBufferCounts).visitMany([...types]);
    } catch (error) {
      throw invalid(`a record batch does not match its schema: ${(error as Error).message}`, error);
    }
  }
}

/**
 * Schemas decoded from schema messages, by the message's bytes. A peer answering the same
 * statement again sends the same bytes: the stream then has the very Schema object of the last
 * time, so what a door keeps per schema (its JSON writers, its encoded IPC schema) is found
 * again, and the flatbuffer is not decoded anew. Schemas are never modified once made.
 */
const decodedSchemas = new LRUCache<string, Schema>({ max: 256 });

/** Schema messages larger than this (hundreds of columns) are decoded each time: the cache holds at most 4 MiB of keys. */
const REMEMBERED_SCHEMA_BYTES = 16 * 1024;

function schemaKey(header: Uint8Array): string {
  return header.byteLength > REMEMBERED_SCHEMA_BYTES ? '' : Buffer.from(header.buffer, header.byteOffset, header.byteLength).toString('latin1');
}

function rememberSchema(header: Uint8Array, schema: Schema): Schema {
  const key = schemaKey(header);
  if (key !== '') decodedSchemas.set(key, schema);
  return schema;
}

function emptyBatch(schema: Schema): RecordBatch {
  const children = schema.fields.map((field) => makeData({ type: field.type }));
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 0, nullCount: 0, children }));
}

/** A header that decoded (flatbuffers check little) into none of the three message types. */
function notIpc(message: Message): QuarryError {
  return invalid(`a FlightData header is not an Arrow IPC message (message type ${String(message.headerType)}; expected a schema, dictionary batch or record batch)`);
}

function decode(header: Uint8Array): Message {
  try {
    return Message.decode(header);
  } catch (error) {
    throw invalid(`a FlightData header is not an Arrow IPC message: ${(error as Error).message}`, error);
  }
}

/**
 * A message's body, 8-byte aligned as Arrow's typed views need: senders that align it (as
 * Quarry's FlightData encoder does) are read in place, others are copied, as Arrow's own
 * readers do.
 */
function bodyOf(message: InboundIpcMessage, bodyLength: number): Uint8Array {
  const body = message.body;
  if (body.byteLength < bodyLength) throw invalid(`a message body has ${body.byteLength} bytes where its header announces ${bodyLength}`);
  const view = body.byteLength === bodyLength ? body : body.subarray(0, bodyLength);
  return alignedBytes(view);
}

function uncompressed(compression: unknown): void {
  // Arrow's JS library has no codec for compressed IPC buffers either.
  if (compression !== null && compression !== undefined) throw invalid('record batches with compressed buffers (LZ4 or ZSTD IPC compression) are not supported: send them uncompressed');
}

function invalid(message: string, cause?: unknown): QuarryError {
  return new QuarryError('FLIGHT_COMMAND_INVALID', `the FlightData is not a valid Arrow IPC stream: ${message}`, cause === undefined ? undefined : { cause });
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
