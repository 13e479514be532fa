import { status, type Metadata, type sendUnaryData, type ServerDuplexStream, type ServerUnaryCall, type ServerWritableStream } from '@grpc/grpc-js';
import { FlightService } from './generated/arrow/flight/protocol/flight_pb.js';
import { admitCall, buildInbound } from './call-admission.js';
import type { FlightContext } from './flight-context.js';
import { grpcStatusOf, metadataOf, toServiceError } from './flight-errors.js';
import { toQuarryError } from '../errors/quarry-error.js';
import type { InboundRequest } from '../pipeline/types.js';

/*
 * Wrappers around handler bodies, one per call shape: every Flight call is admitted
 * (request + auth hooks) before its body runs, and every failure leaves as a gRPC status
 * from the QuarryError table, never a crash, never UNKNOWN. A client cancelling aborts
 * the body's signal. Headers plugins add (`inbound.responseHeaders`) go out as trailers.
 */

/** The gRPC method path, which admission uses as the route. */
export function routeOf(method: string): string {
  return `/${FlightService.typeName}/${method}`;
}

const trailers = (headers: Readonly<Record<string, string>>): Metadata => metadataOf(headers);

function logFailure(context: FlightContext, method: string, error: unknown): void {
  const failure = toQuarryError(error, 'INTERNAL');
  const code = grpcStatusOf(failure);
  const fields = { method, code: failure.code, error: failure.message };
  if (code === status.INTERNAL) context.log.error('Flight call failed', fields);
  else context.log.debug('Flight call refused', fields);
}

/** Unary calls (GetFlightInfo, GetSchema, PollFlightInfo). */
export function unary<Request, Response>(
  context: FlightContext,
  method: string,
  body: (request: Request, inbound: InboundRequest) => Promise<Response>,
): (call: ServerUnaryCall<Request, Response>, callback: sendUnaryData<Response>) => void {
  return (call, callback) => {
    const inbound = buildInbound(call, routeOf(method), { write: false });
    admitCall(context, inbound)
      .then(() => body(call.request, inbound))
      .then(
        (response) => callback(null, response, trailers(inbound.responseHeaders)),
        (error: unknown) => {
          logFailure(context, method, error);
          callback(toServiceError(error, inbound.responseHeaders));
        },
      );
  };
}

export interface StreamCallContext {
  readonly inbound: InboundRequest;
  /** Aborted when the client cancels the call (or the connection drops). */
  readonly signal: AbortSignal;
}

/** Server-streaming calls (DoGet, DoAction, ListFlights, ListActions). */
export function serverStream<Request, Response>(
  context: FlightContext,
  method: string,
  body: (call: ServerWritableStream<Request, Response>, context: StreamCallContext) => Promise<void>,
): (call: ServerWritableStream<Request, Response>) => void {
  return (call) => {
    const cancellation = cancellationOf(call);
    const inbound = buildInbound(call, routeOf(method), { write: false });
    admitCall(context, inbound)
      .then(() => body(call, { inbound, signal: cancellation.signal }))
      .then(
        () => {
          cancellation.settled();
          call.end(trailers(inbound.responseHeaders));
        },
        (error: unknown) => {
          if (cancellation.settled()) return;
          logFailure(context, method, error);
          call.emit('error', toServiceError(error, inbound.responseHeaders));
        },
      );
  };
}

/**
 * The signal a streaming call's body runs under: aborted when the client cancels the call or
 * the connection drops while the body runs. grpc-js also reports "cancelled" for every call
 * whose stream closes after it ended normally; aborting then would only build an AbortError
 * (a DOMException, with its stack) per call for no listener, so once the body settled a
 * later "cancelled" is ignored.
 */
export function cancellationOf(call: { on(event: 'cancelled', listener: () => void): unknown }): { signal: AbortSignal; settled(): boolean } {
  const controller = new AbortController();
  let settled = false;
  call.on('cancelled', () => {
    if (!settled) controller.abort();
  });
  return {
    signal: controller.signal,
    /** Marks the body as finished; true when the call was cancelled before it did. */
    settled: () => {
      settled = true;
      return controller.signal.aborted;
    },
  };
}

export interface DuplexCallContext {
  readonly signal: AbortSignal;
  /** Runs admission once the body knows what the call needs (credentials, descriptor). */
  admit(inbound: InboundRequest): Promise<InboundRequest>;
}

/**
 * The messages of a bidirectional call. Unlike `for await (... of call)`, finishing the
 * iteration does not destroy the call: the response and the status still have to go out.
 */
export function incoming<Request>(call: ServerDuplexStream<Request, unknown>): AsyncIterator<Request> {
  return call.iterator({ destroyOnReturn: false })[Symbol.asyncIterator]() as AsyncIterator<Request>;
}

/**
 * Bidirectional calls (Handshake, DoPut): the body admits the call itself, because what
 * admission needs (Handshake's credentials, DoPut's descriptor) is known only inside.
 */
export function duplexStream<Request, Response>(
  context: FlightContext,
  method: string,
  body: (call: ServerDuplexStream<Request, Response>, context: DuplexCallContext) => Promise<void>,
): (call: ServerDuplexStream<Request, Response>) => void {
  return (call) => {
    const cancellation = cancellationOf(call);
    let admitted: InboundRequest | undefined;
    const admit = (inbound: InboundRequest) => {
      admitted = inbound;
      return admitCall(context, inbound);
    };
    body(call, { signal: cancellation.signal, admit }).then(
      () => {
        cancellation.settled();
        call.end(trailers(admitted?.responseHeaders ?? {}));
      },
      (error: unknown) => {
        if (cancellation.settled()) return;
        logFailure(context, method, error);
        call.emit('error', toServiceError(error, admitted?.responseHeaders ?? {}));
      },
    );
  };
}
