import { errorCodeSpec } from './codes.js';

/**
 * The one error type users see. `code` is stable (clients may switch on it); `message` says
 * what was wrong and what is accepted. HTTP and gRPC statuses come from the code table.
 */
export class QuarryError extends Error {
  readonly code: string;
  /** Extra fields for logs and the JSON error body (never secrets). */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: string, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'QuarryError';
    this.code = code;
    this.details = options?.details;
  }

  get httpStatus(): number {
    return errorCodeSpec(this.code).http;
  }

  get grpcStatus(): number {
    return errorCodeSpec(this.code).grpc;
  }

  /** The JSON error body of every HTTP route: `{"error": {"code", "message"}}`. */
  toJSON(): { error: { code: string; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}

export function isQuarryError(value: unknown): value is QuarryError {
  return value instanceof QuarryError;
}

/** Wraps anything thrown into a QuarryError, keeping a QuarryError as it is. */
export function toQuarryError(value: unknown, fallbackCode = 'INTERNAL'): QuarryError {
  if (value instanceof QuarryError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new QuarryError(fallbackCode, message, { cause: value });
}
