import test from 'ava';
import { Dictionary, Field, Int32, Message, RecordBatch, Schema, Struct, Table, Utf8, makeData, tableFromArrays, vectorFromArray, type Vector } from 'apache-arrow';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { FlightMessageWriter, type IpcMessage } from '../../core/flight/ipc/flight-message-writer.js';
import { readRecordBatches, type InboundIpcMessage } from '../../core/flight/ipc/flight-message-reader.js';

/**
 * The FlightData reader loads each (header, body) pair in place with Arrow's vector loader.
 * Messages here come from the same writer DoGet uses, with bodies placed at the offsets a
 * receiver may see them (aligned, or not: those are copied).
 */

function inbound(message: IpcMessage, misalign: boolean): InboundIpcMessage {
  const body = Buffer.concat(message.body);
  if (!misalign) return { header: message.header, body: new Uint8Array(body) };
  // The same bytes three bytes into a buffer: typed views cannot sit there, the reader must copy.
  const shifted = new Uint8Array(body.byteLength + 3);
  shifted.set(body, 3);
  return { header: message.header, body: shifted.subarray(3) };
}

async function* stream(messages: readonly InboundIpcMessage[]): AsyncGenerator<InboundIpcMessage> {
  yield* messages;
}

function messagesOf(table: Table, misalign: boolean): InboundIpcMessage[] {
  const writer = new FlightMessageWriter();
  const messages = writer.schemaMessages(table.schema);
  for (const batch of table.batches) messages.push(...writer.batchMessages(batch));
  return messages.map((message) => inbound(message, misalign));
}

async function rowsOf(messages: readonly InboundIpcMessage[]): Promise<Array<Record<string, unknown>>> {
  const { batches } = await readRecordBatches(stream(messages));
  const rows: Array<Record<string, unknown>> = [];
  for await (const batch of batches) for (const row of batch) rows.push(row!.toJSON());
  return rows;
}

test('batches and dictionaries (replaced, or grown by a delta) read back as written, from aligned and misaligned bodies', async (t) => {
  const whole = tableFromArrays({ id: Int32Array.from([1, 2, 3]), name: ['a', null, 'c'] }).batches[0]!;
  const plain = new Table([whole.slice(0, 2), whole.slice(2)]);
  // A dictionary column in two batches: the second batch brings a new dictionary with a new value.
  const type = new Dictionary(new Utf8(), new Int32(), 0, false);
  const dictionarySchema = new Schema([new Field('kind', type, true)]);
  const dictionaryBatch = (values: string[], indices: number[]) =>
    new RecordBatch(dictionarySchema, makeData({ type: new Struct(dictionarySchema.fields), length: indices.length, nullCount: 0, children: [makeData({ type, length: indices.length, nullCount: 0, data: Int32Array.from(indices), dictionary: vectorFromArray(values, new Utf8()) })] }));
  const dictionaries = new Table([dictionaryBatch(['x', 'y'], [0, 1, 0]), dictionaryBatch(['x', 'y', 'z'], [2, 1])]);
  // The same dictionary grown by a chunk: the writer sends only the new value, as a delta.
  const deltaBatch = (dictionary: Vector<Utf8>, indices: number[]) =>
    new RecordBatch(dictionarySchema, makeData({ type: new Struct(dictionarySchema.fields), length: indices.length, nullCount: 0, children: [makeData({ type, length: indices.length, nullCount: 0, data: Int32Array.from(indices), dictionary })] }));
  const grown = vectorFromArray(['x', 'y'], new Utf8());
  const deltas = new Table([deltaBatch(grown, [0, 1, 0]), deltaBatch(grown.concat(vectorFromArray(['z'], new Utf8())), [2, 1, 0])]);
  const deltaMessages = messagesOf(deltas, false);
  t.true(deltaMessages.some((message) => { const decoded = Message.decode(message.header); return decoded.isDictionaryBatch() && decoded.header().isDelta; }), 'the stream carries a delta dictionary batch');
  for (const misalign of [false, true]) {
    t.deepEqual(await rowsOf(messagesOf(plain, misalign)), [{ id: 1, name: 'a' }, { id: 2, name: null }, { id: 3, name: 'c' }], `plain, misaligned: ${misalign}`);
    t.deepEqual((await rowsOf(messagesOf(dictionaries, misalign))).map((row) => row['kind']), ['x', 'y', 'x', 'z', 'y'], `dictionaries, misaligned: ${misalign}`);
    t.deepEqual((await rowsOf(messagesOf(deltas, misalign))).map((row) => row['kind']), ['x', 'y', 'x', 'z', 'y', 'x'], `a delta dictionary, misaligned: ${misalign}`);
  }
});

test('a schema without batches reads as one empty batch; what is not Arrow IPC is FLIGHT_COMMAND_INVALID', async (t) => {
  const table = tableFromArrays({ id: Int32Array.from([1]) });
  const [schemaMessage, batchMessage] = messagesOf(table, false);
  const { schema, batches } = await readRecordBatches(stream([schemaMessage!]));
  t.deepEqual(schema.fields.map((field) => field.name), ['id']);
  const read: number[] = [];
  for await (const batch of batches) read.push(batch.numRows);
  t.deepEqual(read, [0]);

  const refused = async (messages: InboundIpcMessage[]) => {
    try {
      const upload = await readRecordBatches(stream(messages));
      for await (const batch of upload.batches) void batch;
    } catch (error) {
      return error as QuarryError;
    }
    return undefined;
  };
  const cases: Array<[string, InboundIpcMessage[], RegExp]> = [
    ['nothing', [], /no Arrow schema message/],
    ['a batch first', [batchMessage!], /first FlightData message must be an Arrow schema, not a record batch/],
    ['a garbage header', [schemaMessage!, { header: new Uint8Array([1, 2, 3]), body: new Uint8Array(0) }], /not an Arrow IPC message/],
    ['a short body', [schemaMessage!, { header: batchMessage!.header, body: new Uint8Array(0) }], /message body has 0 bytes where its header announces \d+/],
    ['a second schema', [schemaMessage!, schemaMessage!], /one schema message, at its start/],
  ];
  for (const [what, messages, message] of cases) {
    const error = await refused(messages);
    t.true(error instanceof QuarryError, what);
    t.is(error?.code, 'FLIGHT_COMMAND_INVALID', what);
    t.regex(error?.message ?? '', message, what);
  }

  // Errors of the source itself (a gRPC status) pass through as they are.
  const failing = async function* (): AsyncGenerator<InboundIpcMessage> {
    yield schemaMessage!;
    throw new Error('14 UNAVAILABLE: connection dropped');
  };
  const upload = await readRecordBatches(failing());
  const error = await t.throwsAsync(async () => {
    for await (const batch of upload.batches) void batch;
  });
  t.is(error?.message, '14 UNAVAILABLE: connection dropped');
});

test('bodies at every offset of a Node Buffer (as gRPC hands them over) read back: 8-byte and 4-byte columns included', async (t) => {
  // Arrow C++ clients (pyarrow) send bodies that gRPC slices out of its frames at any offset.
  // Buffer#slice is a view, not a copy: a reader that realigned with it failed with "start
  // offset of BigInt64Array should be a multiple of 8".
  const table = tableFromArrays({ big: BigInt64Array.from([1n, -2n, 3n]), small: Int32Array.from([4, 5, 6]), real: Float64Array.from([0.5, 1.5, 2.5]), name: ['a', 'b', null] });
  const writer = new FlightMessageWriter();
  const written = [...writer.schemaMessages(table.schema), ...table.batches.flatMap((batch) => writer.batchMessages(batch))];
  for (let offset = 0; offset < 8; offset += 1) {
    const messages = written.map((message) => {
      const body = Buffer.concat(message.body);
      const shifted = Buffer.alloc(body.byteLength + offset);
      body.copy(shifted, offset);
      return { header: message.header, body: shifted.subarray(offset) };
    });
    t.deepEqual(await rowsOf(messages), [
      { big: 1n, small: 4, real: 0.5, name: 'a' },
      { big: -2n, small: 5, real: 1.5, name: 'b' },
      { big: 3n, small: 6, real: 2.5, name: null },
    ], `offset ${offset}`);
  }
});

test('a stream whose schema message was read before has that very Schema, and so do its batches', async (t) => {
  const table = tableFromArrays({ id: Int32Array.from([1, 2, 3]), name: ['a', 'b', 'c'] });
  // Fresh copies of the bytes each time, as each gRPC message brings its own buffer.
  const read = async () => {
    const { schema, batches } = await readRecordBatches(stream(messagesOf(table, false).map((message) => ({ header: new Uint8Array(message.header), body: new Uint8Array(message.body) }))));
    const read: RecordBatch[] = [];
    for await (const batch of batches) read.push(batch);
    return { schema, read };
  };
  const first = await read();
  const second = await read();
  t.is(second.schema, first.schema);
  t.true(second.read.every((batch) => batch.schema === second.schema), 'the batches carry the stream\'s schema object');
  t.deepEqual(second.read.flatMap((batch) => [...batch].map((row) => row!.toJSON())), [{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }]);
  // Another schema is another object.
  const other = tableFromArrays({ id: Int32Array.from([1]) });
  const { schema } = await readRecordBatches(stream(messagesOf(other, false)));
  t.not(schema, first.schema);
  t.deepEqual(schema.fields.map((field) => field.name), ['id']);
});

test('a record batch whose column is shorter than the batch reads as Arrow reads it: padded with nulls', async (t) => {
  const schema = new Schema([new Field('id', new Int32(), true), new Field('name', new Utf8(), true)]);
  const id = vectorFromArray([1, 2, 3], new Int32()).data[0]!;
  const name = vectorFromArray(['a', 'b'], new Utf8()).data[0]!;
  // Built around Arrow's constructor (which would pad): the writer then sends a 3-row batch with a 2-row column.
  const malformed = Object.assign(Object.create(RecordBatch.prototype) as RecordBatch, { schema, data: makeData({ type: new Struct(schema.fields), length: 3, children: [id, name] }), _metadata: new Map() });
  const writer = new FlightMessageWriter();
  const messages = [...writer.schemaMessages(schema), ...writer.batchMessages(malformed)].map((message) => inbound(message, false));
  const { batches } = await readRecordBatches(stream(messages));
  const rows: Array<Record<string, unknown>> = [];
  for await (const batch of batches) {
    t.is(batch.getChildAt(1)!.length, 3);
    for (const row of batch) rows.push(row!.toJSON());
  }
  t.deepEqual(rows, [{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: null }]);
});
