import test from 'ava';
import os from 'node:os';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { ANONYMOUS, type InboundRequest } from '../../core/pipeline/types.js';
import { advertisedEndpoint } from '../../plugins/scheduler/node/advertised-endpoint.js';
import { nodePeerAuthentication } from '../../plugins/scheduler/node/node-peer.js';

test('the advertised node endpoint: an advertise address with a port as given; a wildcard bind takes the advertised host; else the bound address', (t) => {
  t.is(advertisedEndpoint('0.0.0.0:50052', 'exec-1.internal:6000'), 'exec-1.internal:6000');
  t.is(advertisedEndpoint('0.0.0.0:50052', 'exec-1.internal'), 'exec-1.internal:50052');
  t.is(advertisedEndpoint('[::]:50052', 'exec-1.internal'), 'exec-1.internal:50052');
  t.is(advertisedEndpoint('0.0.0.0:50052', undefined), `${os.hostname()}:50052`);
  // On loopback (tests, one machine) a name without a port is only the node's id.
  t.is(advertisedEndpoint('127.0.0.1:41234', 'executor-a'), '127.0.0.1:41234');
  t.is(advertisedEndpoint('10.0.0.7:50052', undefined), '10.0.0.7:50052');
});

const inbound = (tls: InboundRequest['tls']): InboundRequest => ({
  protocol: 'flight', route: '/arrow.flight.protocol.FlightService/DoGet', method: 'GRPC', headers: {}, remoteAddress: '127.0.0.1', tls, public: false, write: false, principal: ANONYMOUS, responseHeaders: {},
});

test('a node listener\'s caller is the cluster peer its verified certificate names; without a verified certificate it is refused', (t) => {
  const material = { ca: Buffer.from(''), cert: Buffer.from(''), key: Buffer.from('') };
  const authenticate = nodePeerAuthentication(material);
  t.deepEqual(authenticate(inbound({ authorized: true, subject: 'CN=quarry-node', authorizationError: undefined })), { id: 'node:CN=quarry-node', method: 'cluster-node', canWrite: true });
  const refused = authenticate(inbound(undefined));
  t.true(refused instanceof QuarryError);
  t.is((refused as QuarryError).code, 'CLUSTER_NODE_UNAUTHENTICATED');
  t.is((refused as QuarryError).httpStatus, 401);
  // Plaintext, explicitly allowed: every peer is trusted.
  t.deepEqual(nodePeerAuthentication(undefined)(inbound(undefined)), { id: 'node:insecure', method: 'cluster-node', canWrite: true });
});
