import test from 'ava';
import http2 from 'node:http2';
import type * as grpc from '@grpc/grpc-js';
import { startNodeServer } from '../../plugins/scheduler/node/node-server.js';

// An executor's node listener must close when it shuts down whatever its peers do. A peer that
// leaves a call's data unread keeps its connection open: grpc-js's graceful shutdown waits for
// that connection, so the close ends after the grace period, when sessions are destroyed.

const same = (bytes: Buffer) => bytes;
const definition = {
  Get: { path: '/quarry.test.Stream/Get', requestStream: false, responseStream: true, requestSerialize: same, requestDeserialize: same, responseSerialize: same, responseDeserialize: same, originalName: 'get' },
} as unknown as grpc.ServiceDefinition;

test('the node listener closes while a peer leaves a call unread on its connection', async (t) => {
  const implementation = {
    Get: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      for (let index = 0; index < 20; index++) call.write(Buffer.alloc(16 * 1024, index));
      call.end();
    },
  };
  const server = await startNodeServer({ address: '127.0.0.1:0', tls: undefined, services: [{ definition, implementation }] });
  // A window that takes the whole answer: the call ends on the server while its data waits here.
  const session = http2.connect(`http://${server.endpoint}`, { settings: { initialWindowSize: 16 * 1024 * 1024 } });
  session.on('error', () => undefined);
  const stream = session.request({ ':method': 'POST', ':path': '/quarry.test.Stream/Get', 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => undefined);
  stream.end(Buffer.from([0, 0, 0, 0, 0]));
  // The first chunk is read, the rest is left where it is (and the stream with it).
  await new Promise((resolve) => stream.once('data', resolve));
  stream.pause();
  while (!stream.closed) await new Promise((resolve) => setTimeout(resolve, 10));
  await server.close();
  t.pass('closed');
  session.destroy();
});
