import test from 'ava';
import { create } from '@bufbuild/protobuf';
import { status, type ClientReadableStream } from '@grpc/grpc-js';
import { Field, makeData, RecordBatch, Schema, Struct, tableFromIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { CommandStatementQuerySchema } from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { decodeEncapsulatedSchema } from '../../core/flight/ipc/flight-message-reader.js';
import { FlightDescriptor_DescriptorType, TicketSchema } from '../../core/flight/generated/arrow/flight/protocol/flight_pb.js';
import { decodeFlightData } from '../../core/flight/flight-data.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { grpcError, withFlight } from './flight-helpers.js';

const setup = { manifest: QUICKSTART_MANIFEST, withQuickstartData: true };

test('GetFlightInfo + DoGet run a query and stream Arrow, with x-cache metadata', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const { table, headers, info } = await client.query("SELECT 1 AS one, 'a' AS letter");
    t.deepEqual(table.toArray().map((row) => row.toJSON()), [{ one: 1, letter: 'a' }]);
    t.is(info.endpoint.length, 1);
    t.truthy(info.endpoint[0]?.expirationTime, 'statement tickets say when they expire');
    t.regex(String(headers.get('x-cache')[0]), /^(HIT|MISS|STALE|BYPASS)$/);
    const orders = await client.query('SELECT count(*) AS n FROM orders');
    t.true(Number(orders.table.get(0)?.toJSON()['n']) > 0);
  });
});

test('the FlightInfo schema is the result schema, also from GetSchema, without running the query', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const info = await client.commandInfo(CommandStatementQuerySchema, { query: 'SELECT 1::INTEGER AS a, 2.5::DOUBLE AS b' });
    t.deepEqual(decodeEncapsulatedSchema(info.schema).fields.map((field) => `${field.name}:${field.type}`), ['a:Int32', 'b:Float64']);
    const schema = await client.querySchema('SELECT * FROM orders');
    const { table } = await client.query('SELECT * FROM orders LIMIT 1');
    t.deepEqual(schema.fields.map((field) => `${field.name}:${field.type}`), table.schema.fields.map((field) => `${field.name}:${field.type}`));
  });
});

test('request metadata reaches the hooks as headers: cache-control passes through', async (t) => {
  await withFlight(t, setup, async ({ client, runtime }) => {
    const seen: Array<Record<string, string | undefined>> = [];
    runtime.hooks.request.tap('test-headers', (request) => void seen.push({ ...request.headers }));
    await client.query('SELECT 1', { 'cache-control': 'no-cache' });
    t.true(seen.length >= 2);
    t.true(seen.every((headers) => headers['cache-control'] === 'no-cache'), 'GetFlightInfo and DoGet both carry it');
  });
});

test('bad SQL is INVALID_ARGUMENT with the engine message; an unknown table is NOT_FOUND', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const syntax = await grpcError(client.query('SELEC 1'));
    t.is(syntax.code, status.INVALID_ARGUMENT);
    t.regex(syntax.details, /syntax error/i);
    t.deepEqual(syntax.metadata.get('x-quarry-error-code'), ['SQL_INVALID']);
    const missing = await grpcError(client.query('SELECT * FROM nope'));
    t.is(missing.code, status.NOT_FOUND);
    const refused = await grpcError(client.query("SET threads = 1"));
    t.is(refused.code, status.INVALID_ARGUMENT, 'statements that change engine state are refused');
  });
});

test('plain Flight: a DoGet ticket holding SQL text runs it; PATH descriptors and ListFlights name datasets', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const { table } = await client.flight.doGetTable(new TextEncoder().encode('SELECT 40 + 2 AS answer'));
    t.is(table.get(0)?.toJSON()['answer'], 42);
    const info = await client.flight.getFlightInfo({ type: FlightDescriptor_DescriptorType.PATH, path: ['orders'] });
    const viaPath = await client.flight.doGetTable(info.endpoint[0]!.ticket!.ticket);
    const direct = await client.query('SELECT * FROM orders');
    t.is(viaPath.table.numRows, direct.table.numRows);
    const flights = await client.flight.listFlights();
    t.deepEqual(flights.map((flight) => flight.flightDescriptor?.path.join('.')).sort(), ['customers', 'orders']);
    const listed = await client.flight.doGetTable(flights.find((flight) => flight.flightDescriptor?.path[0] === 'customers')!.endpoint[0]!.ticket!.ticket);
    t.true(listed.table.numRows > 0);
    const unknown = await grpcError(client.flight.getFlightInfo({ type: FlightDescriptor_DescriptorType.PATH, path: ['nope'] }));
    t.is(unknown.code, status.NOT_FOUND);
  });
});

test('a big result streams as several batches and arrives complete', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const stream = await client.queryStream("SELECT i, i * 2 AS doubled, 'row ' || i AS label FROM range(300000) t(i)");
    let batches = 0;
    let rows = 0;
    let sum = 0n;
    for await (const batch of stream.batches) {
      batches += 1;
      rows += batch.numRows;
      const column = batch.getChild('doubled')!;
      for (let index = 0; index < batch.numRows; index++) sum += column.get(index) as bigint;
      if (batches === 1) t.is(batch.getChild('label')!.get(0), 'row 0');
    }
    t.true(batches > 1, `${batches} batches`);
    t.is(rows, 300_000);
    t.is(sum, 2n * ((299_999n * 300_000n) / 2n));
  });
});

test('runtime.flight.max_message_size caps every FlightData sent and refuses bigger inbound messages', async (t) => {
  // The upload goes to a dataset that takes it (a one-column VARCHAR table): the size limit is
  // then the only reason to refuse it, whichever check of the upload runs first.
  const manifest = `${QUICKSTART_MANIFEST}
  - from: file:notes.csv
    name: notes
    access: read_write
    acceleration:
      enabled: true
runtime:
  flight:
    max_message_size: 64KiB
`;
  await withFlight(t, { ...setup, manifest, files: { 'notes.csv': 's\nfirst\n' } }, async ({ client }) => {
    const sizes: number[] = [];
    const call = client.flight.grpcClient['DoGet']!(create(TicketSchema, { ticket: new TextEncoder().encode("SELECT i, repeat('x', 50) AS pad FROM range(20000) t(i)") }), client.flight.metadata()) as ClientReadableStream<Buffer>;
    const frames: Uint8Array[] = [];
    for await (const raw of call) {
      sizes.push((raw as Buffer).byteLength);
      const message = decodeFlightData(raw as Buffer);
      const prefix = Buffer.alloc(8);
      prefix.writeInt32LE(-1, 0);
      const padded = (message.header.byteLength + 7) & ~7;
      prefix.writeInt32LE(padded, 4);
      frames.push(prefix, Buffer.concat([message.header, Buffer.alloc(padded - message.header.byteLength)]), message.body);
    }
    t.true(sizes.length > 10, `${sizes.length} messages`);
    t.true(Math.max(...sizes) <= 64 * 1024, `largest ${Math.max(...sizes)} bytes`);
    t.is(tableFromIPC(Buffer.concat([...frames, Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])])).numRows, 20_000);

    const schema = new Schema([new Field('s', new Utf8())]);
    const big = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: 1, nullCount: 0, children: [vectorFromArray(['x'.repeat(100_000)], new Utf8()).data[0]!] }));
    const refused = await grpcError(client.flight.doPut({ type: FlightDescriptor_DescriptorType.PATH, path: ['notes'] }, { schema, batches: [big] }));
    t.is(refused.code, status.RESOURCE_EXHAUSTED);
    t.regex(refused.details, /65536/);
  });
});
