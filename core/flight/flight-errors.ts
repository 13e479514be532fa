import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { GRPC } from '../errors/codes.js';
import { toQuarryError, type QuarryError } from '../errors/quarry-error.js';

/** The gRPC status a QuarryError is answered with: never UNKNOWN. */
export function grpcStatusOf(error: QuarryError): status {
  const code = error.grpcStatus;
  return code === GRPC.UNKNOWN || code === GRPC.OK ? status.INTERNAL : (code as status);
}

/**
 * Response headers as gRPC metadata. A value gRPC cannot carry (non-ASCII text, a bad
 * name) is left out rather than failing the call that is reporting something else.
 */
export function metadataOf(headers: Readonly<Record<string, string>>, into: Metadata = new Metadata()): Metadata {
  for (const [name, value] of Object.entries(headers)) {
    try {
      into.set(name.toLowerCase(), value);
    } catch {
      // skipped: not representable as gRPC metadata
    }
  }
  return into;
}

/**
 * What a handler throws, as the status object grpc-js sends: the QuarryError's status and
 * message, the stable code in `x-quarry-error-code`, plus headers plugins asked for
 * (e.g. `www-authenticate`, `retry-after`) as trailing metadata.
 */
export function toServiceError(thrown: unknown, responseHeaders: Readonly<Record<string, string>> = {}): Partial<ServiceError> & { code: status; details: string; metadata: Metadata } {
  const error = toQuarryError(thrown, 'INTERNAL');
  const metadata = metadataOf(responseHeaders);
  const retryAfter = error.details?.['retryAfterSeconds'];
  if (typeof retryAfter === 'number') metadata.set('retry-after', String(retryAfter));
  metadata.set('x-quarry-error-code', error.code);
  const code = grpcStatusOf(error);
  return { code, details: error.message, metadata, message: error.message, name: 'QuarryError' };
}
