/**
 * The errors the client shows to users. Each carries the exit code the process ends with,
 * so every command can simply throw and let run-cli.ts print the message and exit.
 */

/** Exit codes: 0 success, 1 the runtime or the query failed, 2 the command line was wrong. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class CliError extends Error {
  readonly exitCode: number = EXIT_FAILURE;
}

/** A wrong command line: unknown flag, missing argument, bad value. */
export class UsageError extends CliError {
  override readonly exitCode = EXIT_USAGE;
}

/**
 * Nothing answers at the endpoint. Spice users were misled when an auth failure was reported
 * like this (spiceai#9591), so only connection-level failures may become this error.
 */
export class RuntimeUnavailableError extends CliError {
  constructor(readonly endpoint: string, options?: { cause?: unknown }) {
    super(`runtime unavailable at ${endpoint} (${transportName(endpoint)}): is quarryd running?`, options);
  }
}

/** The protocol an endpoint's scheme picks, as errors name it. */
export function transportName(endpoint: string): string {
  return /^grpc/i.test(endpoint) ? 'Arrow Flight SQL' : 'HTTP API';
}

/** Refusals of the built-in API-key scheme: the hint names the key flags. */
const API_KEY_CODES = new Set(['API_KEY_MISSING', 'API_KEY_INVALID']);

/**
 * The runtime answered 401 (UNAUTHENTICATED over Flight). For API keys (or no details) the
 * hint is the key flags; another auth plugin's refusal is shown as the runtime worded it,
 * with the flag that sends its credentials.
 */
export class UnauthorizedError extends CliError {
  constructor(refusal?: { code: string | undefined; message: string | undefined }) {
    const custom = refusal?.message !== undefined && refusal.message !== '' && (refusal.code === undefined || !API_KEY_CODES.has(refusal.code));
    super(custom ? `unauthorized: ${refusal.message} (send the runtime's credentials with --header 'Name: value', or --api-key)` : 'unauthorized: check --api-key (or QUARRY_API_KEY)');
  }
}

/** The request was cancelled by the user (Ctrl-C) before the answer was complete. */
export class CancelledError extends CliError {
  constructor() {
    super('Query cancelled.');
  }
}

/**
 * The runtime answered with an error status; `code` is its stable error code when it sent
 * one. `status` is the HTTP status, or the gRPC status code over Flight; `statusText`
 * names it for `.error` (`HTTP 400`, `gRPC INVALID_ARGUMENT`).
 */
export class ServerError extends CliError {
  readonly statusText: string;

  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly serverMessage: string,
    statusText?: string,
  ) {
    super(code ? `[${code}] ${serverMessage}` : serverMessage);
    this.statusText = statusText ?? `HTTP ${status}`;
  }
}

/** Any other failure talking to the runtime (TLS handshake, reset connection, bad answer). */
export class TransportError extends CliError {}

/**
 * The one line shown for an error. Errors the runtime reported about a query read
 * `Query Error: ...`; problems reaching the runtime read `Error: ...`, because the query
 * itself may be fine. Outside queries (status, refresh) every failure reads `Error: ...`.
 */
export function describeError(error: unknown, context: 'query' | 'command' = 'command'): string {
  if (error instanceof CancelledError) return error.message;
  if (error instanceof ServerError && context === 'query') return `Query Error: ${error.message}`;
  if (error instanceof Error) return `Error: ${error.message}`;
  return `Error: ${String(error)}`;
}

/** The exit code for an error thrown by a command; unexpected errors count as failures. */
export function exitCodeFor(error: unknown): number {
  return error instanceof CliError ? error.exitCode : EXIT_FAILURE;
}
