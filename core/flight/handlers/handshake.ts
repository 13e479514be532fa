import { create } from '@bufbuild/protobuf';
import { Metadata, type ServerDuplexStream } from '@grpc/grpc-js';
import { QuarryError } from '../../errors/quarry-error.js';
import { buildInbound, metadataHeaders } from '../call-admission.js';
import { duplexStream, incoming, routeOf } from '../call-handlers.js';
import type { FlightContext } from '../flight-context.js';
import { HandshakeResponseSchema, type HandshakeRequest, type HandshakeResponse } from '../generated/arrow/flight/protocol/flight_pb.js';

/**
 * Reads `authorization` metadata: `Basic base64(user:password)` yields the password (the
 * API key; the user name is ignored, as ADBC and JDBC send an empty one), `Bearer x` yields x.
 */
function credentialOf(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const [scheme, value = ''] = authorization.trim().split(/\s+/, 2);
  if (/^basic$/i.test(scheme ?? '')) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (value === '' || colon < 0) {
      throw new QuarryError('FLIGHT_UNAUTHENTICATED', 'Invalid authorization header: Basic credentials must be base64("user:password"), the password being the API key');
    }
    return decoded.slice(colon + 1);
  }
  if (/^bearer$/i.test(scheme ?? '')) return value;
  throw new QuarryError('FLIGHT_UNAUTHENTICATED', 'Invalid authorization header: use "Basic base64(user:password)" or "Bearer <token>"');
}

/**
 * Handshake, the way Flight SQL drivers authenticate: credentials in the call's
 * `authorization` metadata are checked by running admission as if the key had come as
 * `authorization: Bearer <key>`; on success the key itself is the bearer token, returned in
 * the response headers (and as the payload of the response message) for later calls.
 */
export function handshakeHandler(context: FlightContext) {
  return duplexStream<HandshakeRequest, HandshakeResponse>(context, 'Handshake', async (call: ServerDuplexStream<HandshakeRequest, HandshakeResponse>, { admit }) => {
    const token = credentialOf(metadataHeaders(call.metadata)['authorization']);
    const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
    await admit(buildInbound(call, routeOf('Handshake'), { write: false, headers }));
    const metadata = new Metadata();
    if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
    call.sendMetadata(metadata);
    const payload = new TextEncoder().encode(token ?? '');
    let answered = false;
    // Answer each request (payload-based clients wait for one), then at least once.
    const requests = incoming(call);
    for (let next = await requests.next(); !next.done; next = await requests.next()) {
      call.write(create(HandshakeResponseSchema, { protocolVersion: next.value.protocolVersion, payload }));
      answered = true;
    }
    if (!answered) call.write(create(HandshakeResponseSchema, { protocolVersion: 0n, payload }));
  });
}
