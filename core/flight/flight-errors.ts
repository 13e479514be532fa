import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { GRPC, errorCodeSpec, type ErrorCodeSpec } from '../errors/codes.js';
import { toQuarryError, type QuarryError } from '../errors/quarry-error.js';

/**
 * Error codes only the Flight door raises. They are kept here (not registered at import)
 * so that importing the listener cannot change docs/errors.md behind the docs generator's
 * back; the runtime owner moves them into core/errors/codes.ts. Until then the Flight door
 * reads their gRPC status from this table.
 */
export const FLIGHT_ERROR_CODES = {
  FLIGHT_COMMAND_INVALID: { http: 400, grpc: GRPC.INVALID_ARGUMENT, description: 'A Flight descriptor, ticket, action body or command could not be decoded (not a google.protobuf.Any, or its value does not match its type).' },
  FLIGHT_COMMAND_UNSUPPORTED: { http: 501, grpc: GRPC.UNIMPLEMENTED, description: 'The Flight method, command type or action is not supported by Quarry (e.g. DoExchange, Substrait plans, transactions).' },
  FLIGHT_HANDLE_NOT_FOUND: { http: 404, grpc: GRPC.NOT_FOUND, description: 'A statement ticket or prepared statement handle is unknown, closed, expired, or belongs to another caller.' },
  FLIGHT_RATE_LIMITED: { http: 429, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'Too many DoPut calls or bytes from this caller (runtime.flight.do_put_rate_limit_enabled); retry after the `retry-after` seconds.' },
  FLIGHT_MESSAGE_TOO_LARGE: { http: 413, grpc: GRPC.RESOURCE_EXHAUSTED, description: 'A single row (or dictionary) does not fit in runtime.flight.max_message_size.' },
  FLIGHT_UNAUTHENTICATED: { http: 401, grpc: GRPC.UNAUTHENTICATED, description: 'The Flight Handshake carried a malformed `authorization` header (expected `Basic base64(user:password)` or `Bearer <token>`).' },
} as const satisfies Record<string, ErrorCodeSpec>;

/** The gRPC status a QuarryError is answered with: never UNKNOWN. */
export function grpcStatusOf(error: QuarryError): status {
  const flight = (FLIGHT_ERROR_CODES as Record<string, ErrorCodeSpec>)[error.code];
  const code = flight ? flight.grpc : errorCodeSpec(error.code).grpc;
  return code === GRPC.UNKNOWN || code === GRPC.OK ? status.INTERNAL : (code as status);
}

/**
 * What a handler throws, as the status object grpc-js sends: the QuarryError's status and
 * message, the stable code in `x-quarry-error-code`, plus headers plugins asked for
 * (e.g. `www-authenticate`, `retry-after`) as trailing metadata.
 */
export function toServiceError(thrown: unknown, responseHeaders: Readonly<Record<string, string>> = {}): Partial<ServiceError> & { code: status; details: string; metadata: Metadata } {
  const error = toQuarryError(thrown, 'INTERNAL');
  const metadata = new Metadata();
  for (const [name, value] of Object.entries(responseHeaders)) metadata.set(name, value);
  const retryAfter = error.details?.['retryAfterSeconds'];
  if (typeof retryAfter === 'number') metadata.set('retry-after', String(retryAfter));
  metadata.set('x-quarry-error-code', error.code);
  const code = grpcStatusOf(error);
  return { code, details: error.message, metadata, message: error.message, name: 'QuarryError' };
}
