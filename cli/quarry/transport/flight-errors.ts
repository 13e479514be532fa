import { status as GrpcStatus } from '@grpc/grpc-js';
import { CancelledError, CliError, RuntimeUnavailableError, ServerError, TransportError, UnauthorizedError } from '../errors.js';

/** The trailing metadata quarryd puts its stable error code in (core/flight/flight-errors.ts). */
const ERROR_CODE_METADATA = 'x-quarry-error-code';

/**
 * Statuses that mean the runtime looked at the query and refused it. Any Flight SQL server
 * answers these about the statement, so even without quarryd's error code they read as
 * `Query Error: …`, like an HTTP 4xx.
 */
const queryStatuses = new Set<number>([
  GrpcStatus.INVALID_ARGUMENT,
  GrpcStatus.NOT_FOUND,
  GrpcStatus.ALREADY_EXISTS,
  GrpcStatus.PERMISSION_DENIED,
  GrpcStatus.RESOURCE_EXHAUSTED,
  GrpcStatus.FAILED_PRECONDITION,
  GrpcStatus.ABORTED,
  GrpcStatus.OUT_OF_RANGE,
  GrpcStatus.UNIMPLEMENTED,
]);

/** grpc-js's words for "nothing listens there": refused, unknown host, unreachable network. */
const unreachable = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL|Name resolution failed/;
const tlsFailure = /SSL routines|certificate|self.signed|CERT_|ERR_TLS_|ERR_SSL_/i;
/** A TLS client reached a plaintext listener. */
const plaintextPeer = /wrong version number|packet length too long/i;
/** Something answered, but not with HTTP/2 (an HTTP/1 port such as quarryd's HTTP API). */
const notGrpcPeer = /Protocol error/;
/** What grpc-js reports when a plaintext client reaches a TLS listener (the peer hangs up). */
const tlsPeer = /Failed to connect/;

interface GrpcServiceError {
  code: number;
  details: string;
  metadata?: { get(name: string): unknown[] };
}

function isGrpcServiceError(error: unknown): error is GrpcServiceError {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'number' && typeof (error as { details?: unknown }).details === 'string';
}

/**
 * A failed Flight call as the error users should see, with the same types and messages as
 * the HTTP transport: UNAUTHENTICATED is always the API key (never "unavailable"), a status
 * carrying quarryd's error code is the runtime's answer, and connection failures grpc-js
 * reports as UNAVAILABLE are told apart from TLS and wrong-port problems.
 */
export function translateFlightError(error: unknown, endpoint: { display: string; tls: boolean }, signal?: AbortSignal): Error {
  if (error instanceof CliError) return error;
  if (signal?.aborted) return new CancelledError();
  if (!isGrpcServiceError(error)) {
    const detail = error instanceof Error ? error.message : String(error);
    return new TransportError(`Flight request to ${endpoint.display} failed: ${detail}`, { cause: error });
  }
  const statusName = GrpcStatus[error.code] ?? String(error.code);
  const serverCode = firstText(error.metadata?.get(ERROR_CODE_METADATA));
  if (error.code === GrpcStatus.UNAUTHENTICATED) return new UnauthorizedError({ code: serverCode, message: error.details });
  if (serverCode !== undefined || queryStatuses.has(error.code)) {
    return new ServerError(error.code, serverCode, error.details, `gRPC ${statusName}`);
  }
  if (error.code === GrpcStatus.UNAVAILABLE) return connectionError(error, endpoint);
  return new TransportError(`Flight request to ${endpoint.display} failed: ${statusName}: ${error.details}`, { cause: error });
}

/** UNAVAILABLE from grpc-js itself: the channel could not be set up. */
function connectionError(error: GrpcServiceError, endpoint: { display: string; tls: boolean }): Error {
  const detail = lastConnectionError(error.details);
  if (unreachable.test(error.details)) return new RuntimeUnavailableError(endpoint.display, { cause: error });
  if (endpoint.tls && plaintextPeer.test(error.details)) {
    return new TransportError(`TLS connection to ${endpoint.display} failed: the listener does not speak TLS (is it a plaintext grpc:// endpoint?)`, { cause: error });
  }
  if (tlsFailure.test(error.details)) {
    return new TransportError(`TLS connection to ${endpoint.display} failed: ${detail} (for a private CA pass --tls-root-certificate-file)`, { cause: error });
  }
  if (notGrpcPeer.test(error.details)) {
    return new TransportError(`Flight connection to ${endpoint.display} failed: ${detail} (is it quarryd's Flight port, default 50051, and not its HTTP port?)`, { cause: error });
  }
  if (!endpoint.tls && tlsPeer.test(error.details)) {
    return new TransportError(`Flight connection to ${endpoint.display} failed: ${detail} (does the listener need TLS? use grpc+tls://)`, { cause: error });
  }
  return new RuntimeUnavailableError(endpoint.display, { cause: error });
}

/**
 * grpc-js wraps the socket error as `No connection established. Last error: Error: … .
 * Resolution note: …`; users need only the socket error.
 */
function lastConnectionError(details: string): string {
  const match = /Last error: (?:Error: )?([\s\S]*?)\.?\s*(?:Resolution note:[\s\S]*)?$/.exec(details);
  const text = (match?.[1] ?? details).trim();
  // Drop the timestamp grpc-js appends to some errors ("Protocol error (2026-…)").
  return text.replace(/\s*\(\d{4}-\d{2}-\d{2}T[\d:.]+Z\)$/, '');
}

function firstText(values: unknown[] | undefined): string | undefined {
  const value = values?.[0];
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  return undefined;
}
