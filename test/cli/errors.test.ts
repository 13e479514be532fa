/**
 * Error messages of the client, checked in-process. The HTTP cases use a fake runtime
 * started in the test, a stand-in for quarryd until the end-to-end tests exist.
 */
import test from 'ava';
import { parseEndpoint } from '../../cli/quarry/endpoint.js';
import {
  CancelledError,
  RuntimeUnavailableError,
  ServerError,
  TransportError,
  UnauthorizedError,
  UsageError,
  describeError,
  exitCodeFor,
} from '../../cli/quarry/errors.js';
import { parseErrorBody } from '../../cli/quarry/http/error-body.js';
import { HttpClient } from '../../cli/quarry/http/http-client.js';
import { createQueryTransport } from '../../cli/quarry/transport/create-transport.js';
import { FlightQueryTransport } from '../../cli/quarry/transport/flight-query-transport.js';
import { HttpQueryTransport } from '../../cli/quarry/transport/http-query-transport.js';
import { closedPort } from './helpers/closed-port.js';
import { FakeRuntime } from './helpers/fake-runtime.js';

function transportFor(endpoint: string, apiKey?: string): HttpQueryTransport {
  return new HttpQueryTransport(new HttpClient({ endpoint: parseEndpoint(endpoint), apiKey, caCertificate: undefined }));
}

test('error bodies: quarryd JSON, Spice-style message, plain text, empty', (t) => {
  t.deepEqual(parseErrorBody(400, '{"error":{"code":"SQL_INVALID","message":"bad"}}'), { code: 'SQL_INVALID', message: 'bad' });
  t.deepEqual(parseErrorBody(403, '{"message":"API key does not allow write access"}'), { code: undefined, message: 'API key does not allow write access' });
  t.deepEqual(parseErrorBody(400, '{"error":"No data sources provided"}'), { code: undefined, message: 'No data sources provided' });
  t.deepEqual(parseErrorBody(400, 'Error during planning: table not found\n'), { code: undefined, message: 'Error during planning: table not found' });
  t.deepEqual(parseErrorBody(503, ''), { code: undefined, message: 'HTTP 503' });
  t.deepEqual(parseErrorBody(500, '[1,2]'), { code: undefined, message: '[1,2]' });
});

test('the lines users read for each kind of error', (t) => {
  t.is(describeError(new ServerError(400, 'SQL_INVALID', 'syntax error'), 'query'), 'Query Error: [SQL_INVALID] syntax error');
  t.is(describeError(new ServerError(404, 'DATASET_NOT_FOUND', 'Dataset x not found')), 'Error: [DATASET_NOT_FOUND] Dataset x not found');
  t.is(describeError(new ServerError(400, undefined, 'plain text'), 'query'), 'Query Error: plain text');
  t.is(describeError(new UnauthorizedError(), 'query'), 'Error: unauthorized: check --api-key (or QUARRY_API_KEY)');
  t.is(describeError(new RuntimeUnavailableError('http://127.0.0.1:8090')), 'Error: runtime unavailable at http://127.0.0.1:8090 (HTTP API): is quarryd running?');
  t.is(describeError(new CancelledError(), 'query'), 'Query cancelled.');
  t.is(exitCodeFor(new UsageError('x')), 2);
  t.is(exitCodeFor(new ServerError(400, undefined, 'x')), 1);
  t.is(exitCodeFor(new Error('unexpected')), 1);
});

test('connection refused becomes RuntimeUnavailableError', async (t) => {
  const port = await closedPort();
  const transport = transportFor(`http://127.0.0.1:${port}`);
  const error = await t.throwsAsync(transport.queryArrow('select 1', {}), { instanceOf: RuntimeUnavailableError });
  t.is(error?.message, `runtime unavailable at http://127.0.0.1:${port} (HTTP API): is quarryd running?`);
  transport.close();
});

test('401 becomes UnauthorizedError whatever the body, 403 and 400 keep the runtime message', async (t) => {
  const runtime = await FakeRuntime.start({ apiKey: 'k' });
  const anonymous = transportFor(runtime.endpoint);
  await t.throwsAsync(anonymous.queryArrow('select 1 as one', {}), { instanceOf: UnauthorizedError });
  const keyed = transportFor(runtime.endpoint, 'k');
  const denied = await t.throwsAsync(keyed.queryArrow('select * from secrets', {}), { instanceOf: ServerError });
  t.like(denied, { status: 403, code: 'ACCESS_DENIED', serverMessage: 'Access denied: reading files is not allowed' });
  const invalid = await t.throwsAsync(keyed.queryText('selec', 'json', {}), { instanceOf: ServerError });
  t.like(invalid, { status: 400, code: 'SQL_INVALID' });
  anonymous.close();
  keyed.close();
  await runtime.close();
});

test('aborting the signal cancels an in-flight query', async (t) => {
  const runtime = await FakeRuntime.start();
  const transport = transportFor(runtime.endpoint);
  const controller = new AbortController();
  const pending = transport.queryArrow('select * from slow', { signal: controller.signal });
  await runtime.waitForRequest((request) => request.body === 'select * from slow');
  controller.abort();
  await t.throwsAsync(pending, { instanceOf: CancelledError });
  transport.close();
  await runtime.close();
});

test('a result that breaks off midway is an error, not a short result', async (t) => {
  const runtime = await FakeRuntime.start();
  const transport = transportFor(runtime.endpoint);
  const error = await t.throwsAsync(
    (async () => {
      const result = await transport.queryArrow('select * from broken', {});
      for await (const _batch of result.batches) {
        // reading every batch is what fails
      }
    })(),
    { instanceOf: TransportError },
  );
  t.regex(error?.message ?? '', /^the result from http:\/\/127\.0\.0\.1:\d+ broke off before the end: /);
  transport.close();
  await runtime.close();
});

test('grpc:// endpoints get the Flight transport, http:// the HTTP one', async (t) => {
  const flight = await createQueryTransport({ endpoint: parseEndpoint('grpc://127.0.0.1:50051'), apiKey: undefined, headers: {}, caCertificateFile: undefined });
  t.true(flight instanceof FlightQueryTransport);
  t.is(flight.endpoint, 'grpc://127.0.0.1:50051');
  flight.close();
  const http = await createQueryTransport({ endpoint: parseEndpoint('http://127.0.0.1:8090'), apiKey: undefined, headers: {}, caCertificateFile: undefined });
  t.true(http instanceof HttpQueryTransport);
  http.close();
});
