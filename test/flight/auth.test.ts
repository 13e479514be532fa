import test from 'ava';
import { status } from '@grpc/grpc-js';
import { defineErrorCodes, GRPC } from '../../core/errors/codes.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import type { InboundRequest } from '../../core/pipeline/types.js';
import { FlightDescriptor_DescriptorType } from '../../core/flight/generated/arrow/flight/protocol/flight_pb.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { grpcError, withFlight } from './flight-helpers.js';

defineErrorCodes({ TEST_UNAUTHENTICATED: { http: 401, grpc: GRPC.UNAUTHENTICATED, description: 'test plugin refusal' } });

/** A stand-in for the API-key plugin: `Bearer good` may write, `Bearer reader` may read, anything else is refused. */
function testAuthPlugin(seen: InboundRequest[]): QuarryPlugin {
  return {
    name: 'test-auth',
    apply(runtime) {
      runtime.hooks.auth.tapPromise({ name: 'test-auth', stage: STAGE.AUTHENTICATE }, async (request) => {
        seen.push(request);
        const authorization = request.headers['authorization'];
        if (authorization === 'Bearer good') request.principal = { id: 'apikey:good', method: 'api-key', canWrite: true };
        else if (authorization === 'Bearer reader') request.principal = { id: 'apikey:reader', method: 'api-key', canWrite: false };
        else {
          request.responseHeaders['www-authenticate'] = 'Bearer';
          return new QuarryError('TEST_UNAUTHENTICATED', authorization ? 'Invalid credentials' : 'Missing authorization header');
        }
        return undefined;
      });
    },
  };
}

test('Handshake with Basic credentials returns the key as bearer token; calls need it', async (t) => {
  const seen: InboundRequest[] = [];
  await withFlight(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, bundle: [testAuthPlugin(seen)] }, async ({ client, connect }) => {
    const anonymous = await grpcError(client.query('SELECT 1'));
    t.is(anonymous.code, status.UNAUTHENTICATED);
    t.is(anonymous.details, 'Missing authorization header');
    t.deepEqual(anonymous.metadata.get('www-authenticate'), ['Bearer']);

    const token = await client.handshake('', 'good');
    t.is(token, 'good');
    const handshake = seen.at(-1)!;
    t.is(handshake.route, '/arrow.flight.protocol.FlightService/Handshake');
    t.is(handshake.headers['authorization'], 'Bearer good', 'the password is checked as a bearer key');
    t.is(handshake.protocol, 'flight');
    t.is(handshake.method, 'GRPC');

    const { table } = await client.query('SELECT 1 AS one');
    t.is(table.numRows, 1);
    t.is(seen.at(-1)!.principal.id, 'apikey:good');
    t.deepEqual(
      [...new Set(seen.map((request) => request.route.split('/').pop()))].sort(),
      ['DoGet', 'GetFlightInfo', 'Handshake'],
      'every call passes admission',
    );

    const wrong = await grpcError(connect().handshake('user', 'bad'));
    t.is(wrong.code, status.UNAUTHENTICATED);
    t.is(wrong.details, 'Invalid credentials');
    const malformed = await grpcError(connect({ headers: { authorization: 'Basic !!!' } }).query('SELECT 1'));
    t.is(malformed.code, status.UNAUTHENTICATED);
    const bearer = connect({ token: 'good' });
    t.is((await bearer.getTables()).numRows, 2, 'a bearer token works without a handshake (metadata commands included)');
  });
});

test('every method is admitted: metadata, actions, schemas, prepared statements and DoPut', async (t) => {
  const seen: InboundRequest[] = [];
  await withFlight(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, bundle: [testAuthPlugin(seen)] }, async ({ client, connect }) => {
    for (const call of [
      () => client.getCatalogs(),
      () => client.querySchema('SELECT 1'),
      () => client.prepare('SELECT $1::INTEGER'),
      () => client.flight.listActions(),
      () => client.flight.listFlights(),
      () => client.flight.doAction('CreatePreparedStatement'),
      () => client.executeUpdate('INSERT INTO orders SELECT * FROM orders'),
      () => client.flight.doPut({ type: FlightDescriptor_DescriptorType.PATH, path: ['orders'] }),
    ]) {
      t.is((await grpcError(call())).code, status.UNAUTHENTICATED);
    }
    const reader = connect({ token: 'reader' });
    const prepared = await reader.prepare('SELECT $1::INTEGER + 1 AS x');
    await prepared.bind(['1']);
    t.deepEqual((await prepared.query()).table.toArray().map((row) => row.toJSON()), [{ x: 2 }], 'binding parameters is not a write');
    const write = await grpcError(reader.flight.doPut({ type: FlightDescriptor_DescriptorType.PATH, path: ['orders'] }));
    t.is(write.code, status.PERMISSION_DENIED, 'a read-only key cannot DoPut');
    const put = seen.filter((request) => request.route.endsWith('/DoPut'));
    t.true(put.some((request) => request.write), 'DoPut appends are admitted as writes');
  });
});

test('a draining runtime refuses new Flight calls with UNAVAILABLE', async (t) => {
  await withFlight(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ client, runtime }) => {
    t.is((await client.query('SELECT 1')).table.numRows, 1);
    const stream = await client.queryStream('SELECT i FROM range(100000000) t(i)');
    const iterator = stream.batches[Symbol.asyncIterator]();
    await iterator.next();
    const stopping = runtime.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await grpcError(client.query('SELECT 1'));
    t.true(refused.code === status.UNAVAILABLE, `code ${refused.code}: ${refused.details}`);
    stream.cancel();
    await stopping;
  });
});
