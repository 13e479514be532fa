/**
 * How the Flight transport turns gRPC statuses into the client's errors, checked on the
 * shapes grpc-js produces (the end-to-end file covers the same cases against quarryd).
 */
import test from 'ava';
import { Metadata, status } from '@grpc/grpc-js';
import { CancelledError, RuntimeUnavailableError, ServerError, TransportError, UnauthorizedError, describeError } from '../../cli/quarry/errors.js';
import { translateFlightError } from '../../cli/quarry/transport/flight-errors.js';

const plain = { display: 'grpc://127.0.0.1:50051', tls: false };
const secure = { display: 'grpc+tls://127.0.0.1:50051', tls: true };

function grpcError(code: status, details: string, errorCode?: string): Error & { code: number; details: string; metadata: Metadata } {
  const metadata = new Metadata();
  if (errorCode) metadata.set('x-quarry-error-code', errorCode);
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata });
}

test('query errors keep the runtime code and message: Query Error: [CODE] message', (t) => {
  const notFound = translateFlightError(grpcError(status.NOT_FOUND, 'table "nowhere" does not exist', 'TABLE_NOT_FOUND'), plain);
  t.true(notFound instanceof ServerError);
  t.is(describeError(notFound, 'query'), 'Query Error: [TABLE_NOT_FOUND] table "nowhere" does not exist');
  t.like(notFound, { status: status.NOT_FOUND, code: 'TABLE_NOT_FOUND', statusText: 'gRPC NOT_FOUND' });
  const invalid = translateFlightError(grpcError(status.INVALID_ARGUMENT, 'Parser Error: syntax error', 'SQL_INVALID'), plain);
  t.is(describeError(invalid, 'query'), 'Query Error: [SQL_INVALID] Parser Error: syntax error');
  const denied = translateFlightError(grpcError(status.PERMISSION_DENIED, 'writes are not allowed', 'WRITE_NOT_ALLOWED'), plain);
  t.is(describeError(denied, 'query'), 'Query Error: [WRITE_NOT_ALLOWED] writes are not allowed');
  // Another Flight SQL server sends no quarryd code: the message alone.
  t.is(describeError(translateFlightError(grpcError(status.INVALID_ARGUMENT, 'bad SQL'), plain), 'query'), 'Query Error: bad SQL');
  // A runtime that is stopping answers UNAVAILABLE with its code: its answer, not "unavailable".
  t.like(translateFlightError(grpcError(status.UNAVAILABLE, 'the runtime is draining', 'RUNTIME_SHUTTING_DOWN'), plain), { code: 'RUNTIME_SHUTTING_DOWN' });
});

test('UNAUTHENTICATED reads as the API key for the API-key scheme, and as the runtime worded it for another', (t) => {
  const keyMissing = translateFlightError(grpcError(status.UNAUTHENTICATED, 'send X-API-Key', 'API_KEY_MISSING'), plain);
  t.true(keyMissing instanceof UnauthorizedError);
  t.is(keyMissing.message, 'unauthorized: check --api-key (or QUARRY_API_KEY)');
  const custom = translateFlightError(grpcError(status.UNAUTHENTICATED, 'Invalid credentials', 'SOME_CODE'), plain);
  t.true(custom instanceof UnauthorizedError);
  t.is(custom.message, "unauthorized: Invalid credentials (send the runtime's credentials with --header 'Name: value', or --api-key)");
});

test('connection failures: refused or unknown host is unavailable; TLS and wrong ports say so', (t) => {
  const refused = grpcError(status.UNAVAILABLE, 'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:50051. Resolution note: ');
  t.true(translateFlightError(refused, plain) instanceof RuntimeUnavailableError);
  t.is(translateFlightError(refused, plain).message, 'runtime unavailable at grpc://127.0.0.1:50051 (Arrow Flight SQL): is quarryd running?');
  t.true(translateFlightError(grpcError(status.UNAVAILABLE, 'Name resolution failed for target dns:nohost:50051'), plain) instanceof RuntimeUnavailableError);

  const untrusted = translateFlightError(grpcError(status.UNAVAILABLE, 'No connection established. Last error: Error: self-signed certificate. Resolution note: '), secure);
  t.true(untrusted instanceof TransportError);
  t.is(untrusted.message, 'TLS connection to grpc+tls://127.0.0.1:50051 failed: self-signed certificate (for a private CA pass --tls-root-certificate-file)');
  const plaintextListener = 'No connection established. Last error: Error: 80:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:ssl3_record.c:350:\n. Resolution note: ';
  t.regex(translateFlightError(grpcError(status.UNAVAILABLE, plaintextListener), secure).message, /does not speak TLS \(is it a plaintext grpc:\/\/ endpoint\?\)$/);
  const httpPort = translateFlightError(grpcError(status.UNAVAILABLE, 'No connection established. Last error: Protocol error (2026-01-01T00:00:00.000Z). Resolution note: '), plain);
  t.is(httpPort.message, "Flight connection to grpc://127.0.0.1:50051 failed: Protocol error (is it quarryd's Flight port, default 50051, and not its HTTP port?)");
  const tlsListener = translateFlightError(grpcError(status.UNAVAILABLE, 'No connection established. Last error: Failed to connect (2026-01-01T00:00:00.000Z). Resolution note: '), plain);
  t.regex(tlsListener.message, /use grpc\+tls:\/\/\)$/);
});

test('a cancelled signal wins; statuses grpc-js makes up itself are transport errors', (t) => {
  const controller = new AbortController();
  controller.abort();
  t.true(translateFlightError(grpcError(status.CANCELLED, 'Cancelled on client'), plain, controller.signal) instanceof CancelledError);
  const internal = translateFlightError(grpcError(status.INTERNAL, 'Received RST_STREAM with code 2'), plain);
  t.true(internal instanceof TransportError);
  t.is(internal.message, 'Flight request to grpc://127.0.0.1:50051 failed: INTERNAL: Received RST_STREAM with code 2');
  t.is(translateFlightError(new Error('boom'), plain).message, 'Flight request to grpc://127.0.0.1:50051 failed: boom');
});
