import test from 'ava';
import { create, toBinary } from '@bufbuild/protobuf';
import { AnySchema } from '@bufbuild/protobuf/wkt';
import { status, type ClientDuplexStream } from '@grpc/grpc-js';
import { packAny } from '../../core/flight/flight-any.js';
import { FlightDescriptor_DescriptorType, FlightDescriptorSchema } from '../../core/flight/generated/arrow/flight/protocol/flight_pb.js';
import * as sql from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { grpcError, withFlight } from './flight-helpers.js';

const setup = { manifest: QUICKSTART_MANIFEST, withQuickstartData: true };
const CMD = FlightDescriptor_DescriptorType.CMD;
const any = (typeUrl: string, value: number[]) => toBinary(AnySchema, create(AnySchema, { typeUrl, value: new Uint8Array(value) }));

test('malformed commands are INVALID_ARGUMENT, unknown ones UNIMPLEMENTED, and the server keeps serving', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const cases: Array<[string, Uint8Array, number]> = [
      ['garbage value in a known Any', any('type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery', [0x0a, 0xff, 0xff, 0xff]), status.INVALID_ARGUMENT],
      ['unknown Flight SQL type', any('type.googleapis.com/arrow.flight.protocol.sql.CommandDoSomething', []), status.UNIMPLEMENTED],
      ['a type from another package', any('type.googleapis.com/google.protobuf.Empty', []), status.UNIMPLEMENTED],
      ['bytes that are no Any at all', new Uint8Array([0x01, 0x02, 0x03]), status.INVALID_ARGUMENT],
      ['an update command', packAny(sql.CommandStatementUpdateSchema, { query: 'SELECT 1' }), status.INVALID_ARGUMENT],
      ['a Substrait plan', packAny(sql.CommandStatementSubstraitPlanSchema, {}), status.UNIMPLEMENTED],
      ['a transaction', packAny(sql.CommandStatementQuerySchema, { query: 'SELECT 1', transactionId: new Uint8Array([1]) }), status.UNIMPLEMENTED],
      ['an unknown prepared statement', packAny(sql.CommandPreparedStatementQuerySchema, { preparedStatementHandle: new Uint8Array([1, 2]) }), status.NOT_FOUND],
    ];
    for (const [name, cmd, code] of cases) {
      const failure = await grpcError(client.flight.getFlightInfo({ type: CMD, cmd }));
      t.is(failure.code, code, `${name}: ${failure.details}`);
      t.is((await grpcError(client.flight.getSchema({ type: CMD, cmd }))).code, code, `GetSchema, ${name}`);
    }
    t.is((await grpcError(client.flight.getFlightInfo({ type: FlightDescriptor_DescriptorType.UNKNOWN }))).code, status.INVALID_ARGUMENT);
    t.is((await client.query('SELECT 1 AS still_alive')).table.numRows, 1);
  });
});

test('bad tickets: not UTF-8, unknown handles, commands that are not tickets', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    t.is((await grpcError(client.flight.doGet(new Uint8Array([0xff, 0xfe, 0xfd])))).code, status.INVALID_ARGUMENT);
    t.is((await grpcError(client.flight.doGet(packAny(sql.TicketStatementQuerySchema, { statementHandle: new Uint8Array(16) })))).code, status.NOT_FOUND);
    t.is((await grpcError(client.flight.doGet(packAny(sql.CommandStatementUpdateSchema, { query: 'SELECT 1' })))).code, status.INVALID_ARGUMENT);
    t.is((await grpcError(client.flight.doGet(any('type.googleapis.com/arrow.flight.protocol.sql.Nope', [])))).code, status.UNIMPLEMENTED);
    t.is((await grpcError(client.flight.doGet(new TextEncoder().encode('SELEC 1')))).code, status.INVALID_ARGUMENT);
  });
});

test('DoExchange and PollFlightInfo are UNIMPLEMENTED; DoPut needs a descriptor', async (t) => {
  await withFlight(t, setup, async ({ client }) => {
    const exchange = client.flight.grpcClient['DoExchange']!(client.flight.metadata()) as ClientDuplexStream<Buffer, Buffer>;
    exchange.end();
    const exchangeFailure = await grpcError((async () => {
      for await (const message of exchange) void message;
    })());
    t.is(exchangeFailure.code, status.UNIMPLEMENTED);
    const poll = await grpcError(new Promise((resolve, reject) => {
      client.flight.grpcClient['PollFlightInfo']!(create(FlightDescriptorSchema, { type: CMD, cmd: packAny(sql.CommandStatementQuerySchema, { query: 'SELECT 1' }) }), client.flight.metadata(), (error: Error | null, value: unknown) => (error ? reject(error) : resolve(value)));
    }));
    t.is(poll.code, status.UNIMPLEMENTED);
    const put = client.flight.grpcClient['DoPut']!(client.flight.metadata()) as ClientDuplexStream<Buffer, Buffer>;
    put.write(Buffer.from([0x12, 0x00]));
    put.end();
    const putFailure = await grpcError((async () => {
      for await (const message of put) void message;
    })());
    t.is(putFailure.code, status.INVALID_ARGUMENT);
    t.regex(putFailure.details, /FlightDescriptor/);
  });
});
