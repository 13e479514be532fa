import type { Metadata } from '@grpc/grpc-js';
import type { PeerCertificate } from 'node:tls';
import { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { PhaseMachine } from '../lifecycle/phase.js';
import { admit, type PeerAuthentication } from '../pipeline/admission.js';
import { ANONYMOUS, type InboundRequest, type TlsPeer } from '../pipeline/types.js';

/** The part of any grpc-js server call object admission reads. */
export interface ServerSurfaceCall {
  readonly metadata: Metadata;
  getPeer(): string;
  getAuthContext(): { transportSecurityType?: string; sslPeerCertificate?: PeerCertificate };
}

/**
 * Every Flight call goes through the same door as HTTP: `hooks.request` then `hooks.auth`
 * (admission), on an InboundRequest built from the gRPC metadata. A draining runtime
 * refuses new calls with UNAVAILABLE before any hook runs.
 */
export interface AdmissionContext {
  readonly hooks: Hooks;
  readonly phase: PhaseMachine;
  /** Set on a listener that authenticates peers itself (see FlightServiceOptions.authenticate). */
  readonly authenticate?: PeerAuthentication | undefined;
}

/** Lower-case metadata names to their first value; binary (`-bin`) values are left out. */
export function metadataHeaders(metadata: Metadata): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(metadata.getMap())) {
    if (typeof value === 'string') headers[name.toLowerCase()] = value;
  }
  return headers;
}

function tlsPeer(call: ServerSurfaceCall): TlsPeer | undefined {
  const context = call.getAuthContext();
  if (!context || context.transportSecurityType !== 'ssl') return undefined;
  const certificate = context.sslPeerCertificate;
  const subject = certificate?.subject
    ? Object.entries(certificate.subject).map(([key, value]) => `${key}=${String(value)}`).join(',')
    : undefined;
  return { authorized: certificate !== undefined, subject, authorizationError: undefined };
}

function remoteAddress(call: ServerSurfaceCall): string | undefined {
  const peer = call.getPeer();
  const match = /^(?:ipv[46]:)?\[?([^\]]+?)\]?:\d+$/.exec(peer);
  return match?.[1] ?? peer;
}

/** Builds the InboundRequest of a call; `headers` overrides what the metadata says (Handshake). */
export function buildInbound(call: ServerSurfaceCall, route: string, options: { write: boolean; headers?: Record<string, string | undefined> }): InboundRequest {
  return {
    protocol: 'flight',
    route,
    method: 'GRPC',
    headers: { ...metadataHeaders(call.metadata), ...options.headers },
    remoteAddress: remoteAddress(call),
    tls: tlsPeer(call),
    public: false,
    write: options.write,
    principal: ANONYMOUS,
    responseHeaders: {},
    arrivedAt: performance.now(),
  };
}

/** Runs admission for a call; throws a QuarryError (UNAVAILABLE while draining, auth refusals, ...). */
export async function admitCall(context: AdmissionContext, inbound: InboundRequest): Promise<InboundRequest> {
  if (!context.phase.acceptsWork) {
    throw new QuarryError('RUNTIME_SHUTTING_DOWN', 'the runtime is shutting down and accepts no new Flight calls');
  }
  await admit(context.hooks, inbound, context.authenticate);
  return inbound;
}
