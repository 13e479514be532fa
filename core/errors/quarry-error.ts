import { GRPC, errorCodeSpec } from './codes.js';

/**
 * Marks a Quarry error across copies of the package. A plugin may build its refusals with
 * another copy of Quarry than the one running it (its own `node_modules/quarry`, `dist/` beside
 * `core/`), so `instanceof` cannot tell a refusal from a plugin bug; this registered symbol can.
 * The `/v1` is the shape's version: code, message, httpStatus, grpcStatus, details.
 */
export const QUARRY_ERROR_BRAND: unique symbol = Symbol.for('quarry.error/v1') as never;

/** Explicit statuses for a code the running runtime may not have in its table (a plugin's own). */
export interface ErrorStatus {
  readonly http: number;
  readonly grpc?: number;
}

/**
 * The one error type users see. `code` is stable (clients may switch on it); `message` says
 * what was wrong and what is accepted. HTTP and gRPC statuses come from the code table, or
 * from `status` when the error was made with one (see `refuse`).
 */
export class QuarryError extends Error {
  readonly [QUARRY_ERROR_BRAND] = true;
  readonly code: string;
  /** Extra fields for logs and the JSON error body (never secrets). */
  readonly details: Record<string, unknown> | undefined;
  readonly #status: ErrorStatus | undefined;

  constructor(code: string, message: string, options?: { cause?: unknown; details?: Record<string, unknown>; status?: ErrorStatus }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'QuarryError';
    this.code = code;
    this.details = options?.details;
    this.#status = options?.status;
  }

  get httpStatus(): number {
    return this.#status?.http ?? errorCodeSpec(this.code).http;
  }

  get grpcStatus(): number {
    if (this.#status) return this.#status.grpc ?? grpcStatusForHttp(this.#status.http);
    return errorCodeSpec(this.code).grpc;
  }

  /** The JSON error body of every HTTP route: `{"error": {"code", "message"}}`. */
  toJSON(): { error: { code: string; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}

/**
 * A refusal with its own status, for a plugin's code the runtime's table does not hold:
 * `throw refuse('TEAM_REQUIRED', 'send X-Team: data', 401)`. A code the table holds keeps its
 * table status unless one is given; an unknown code without a status is a 500.
 */
export function refuse(code: string, message: string, status?: number | ErrorStatus, options?: { cause?: unknown; details?: Record<string, unknown> }): QuarryError {
  const explicit = typeof status === 'number' ? { http: status } : status;
  if (explicit !== undefined) checkHttpStatus(explicit.http, code);
  return new QuarryError(code, message, { ...options, status: explicit });
}

function checkHttpStatus(status: number, code: string): void {
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new RangeError(`refuse(${JSON.stringify(code)}): the HTTP status must be an integer from 400 to 599, got ${String(status)}`);
  }
}

/** The gRPC status a client expects for an HTTP status (the gRPC project's own mapping, extended). */
export function grpcStatusForHttp(http: number): number {
  switch (http) {
    case 400: return GRPC.INVALID_ARGUMENT;
    case 401: return GRPC.UNAUTHENTICATED;
    case 403: return GRPC.PERMISSION_DENIED;
    case 404: return GRPC.NOT_FOUND;
    case 409: return GRPC.ALREADY_EXISTS;
    case 413:
    case 429: return GRPC.RESOURCE_EXHAUSTED;
    case 501: return GRPC.UNIMPLEMENTED;
    case 502:
    case 503: return GRPC.UNAVAILABLE;
    case 504: return GRPC.DEADLINE_EXCEEDED;
    default: return http < 500 ? GRPC.FAILED_PRECONDITION : GRPC.INTERNAL;
  }
}

interface BrandedError {
  readonly code: string;
  readonly message: string;
  readonly httpStatus?: unknown;
  readonly grpcStatus?: unknown;
  readonly details?: unknown;
}

function isBranded(value: unknown): value is BrandedError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<PropertyKey, unknown>;
  return candidate[QUARRY_ERROR_BRAND] === true && typeof candidate['code'] === 'string' && typeof candidate['message'] === 'string';
}

/** A Quarry error of this copy or of any other (recognised by its brand, not its class). */
export function isQuarryError(value: unknown): value is QuarryError {
  return value instanceof QuarryError || isBranded(value);
}

/** Another copy's error as one of ours, keeping the statuses it answers with. */
function adoptForeign(foreign: BrandedError): QuarryError {
  const http = typeof foreign.httpStatus === 'number' && foreign.httpStatus >= 400 && foreign.httpStatus <= 599 ? foreign.httpStatus : undefined;
  const grpc = typeof foreign.grpcStatus === 'number' && foreign.grpcStatus > 0 && foreign.grpcStatus <= 16 ? foreign.grpcStatus : undefined;
  const details = typeof foreign.details === 'object' && foreign.details !== null ? (foreign.details as Record<string, unknown>) : undefined;
  return new QuarryError(foreign.code, foreign.message, { cause: foreign, details, ...(http === undefined ? {} : { status: { http, grpc } }) });
}

/** Wraps anything thrown into a QuarryError, keeping a QuarryError (of any copy) as it is. */
export function toQuarryError(value: unknown, fallbackCode = 'INTERNAL'): QuarryError {
  if (value instanceof QuarryError) return value;
  if (isBranded(value)) return adoptForeign(value);
  const message = value instanceof Error ? value.message : String(value);
  return new QuarryError(fallbackCode, message, { cause: value });
}
