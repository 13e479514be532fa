import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { ANONYMOUS, type InboundRequest, type TlsPeer } from '../pipeline/types.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Reachable without credentials (`/health`, `/v1/ready`). */
    public?: boolean;
    /** The route writes (refresh): the caller must be allowed to write. */
    write?: boolean;
  }
  interface FastifyRequest {
    /** The transport-neutral view of this request, built before auth. */
    inbound: InboundRequest;
  }
}

const ARRIVED = Symbol('quarry.arrivedAt');
type Stamped = IncomingMessage & { [ARRIVED]?: number };

/** Notes when a request reached the server (the listener's first step): where its query's `door_in` stage starts. Returns that time. */
export function markArrival(raw: IncomingMessage): number {
  return ((raw as Stamped)[ARRIVED] = performance.now());
}

/**
 * Node's request headers are already a lower-cased record of strings; only `set-cookie` may
 * be an array. Copied only then (this runs on every request).
 */
function headerRecord(request: IncomingMessage): Record<string, string | undefined> {
  const headers = request.headers;
  if (headers['set-cookie'] === undefined) return headers as Record<string, string | undefined>;
  const copy: Record<string, string | undefined> = {};
  for (const name in headers) {
    const value = headers[name];
    copy[name] = Array.isArray(value) ? value[0] : value;
  }
  return copy;
}

function tlsPeer(request: IncomingMessage): TlsPeer | undefined {
  const socket = request.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const certificate = socket.getPeerCertificate();
  const subject = certificate && Object.keys(certificate).length > 0 && certificate.subject
    ? Object.entries(certificate.subject).map(([key, value]) => `${key}=${String(value)}`).join(',')
    : undefined;
  return {
    authorized: socket.authorized === true,
    subject,
    authorizationError: socket.authorizationError === undefined ? undefined : String(socket.authorizationError),
  };
}

export function buildInbound(request: FastifyRequest): InboundRequest {
  // One read of routeOptions: fastify builds a new object on every access.
  const { config, url } = request.routeOptions;
  return inboundOf(request.raw, url ?? request.url.split('?')[0] ?? request.url, { public: config.public === true, write: config.write === true });
}

/**
 * The inbound view of a raw HTTP request on `route` (what `buildInbound` makes once fastify
 * routed it; the fast lane makes it before). The address is the socket's: the listener
 * trusts no proxy headers.
 */
export function inboundOf(raw: IncomingMessage, route: string, access: { public: boolean; write: boolean }): InboundRequest {
  const arrivedAt = (raw as Stamped)[ARRIVED];
  return {
    protocol: 'http',
    route,
    method: raw.method ?? 'GET',
    headers: headerRecord(raw),
    remoteAddress: raw.socket.remoteAddress,
    tls: tlsPeer(raw),
    public: access.public,
    write: access.write,
    principal: ANONYMOUS,
    responseHeaders: {},
    ...(arrivedAt === undefined ? {} : { arrivedAt }),
  };
}
