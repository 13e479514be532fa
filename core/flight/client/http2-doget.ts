import { create, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import http2 from 'node:http2';
import { decodeFlightData } from '../flight-data.js';
import { TicketSchema } from '../generated/arrow/flight/protocol/flight_pb.js';
import { readRecordBatches, type InboundIpcMessage } from '../ipc/flight-message-reader.js';
import { GRPC_PREFIX_BYTES, writeGrpcPrefix } from '../pre-framed-messages.js';
import type { DoGetOptions, FlightStream } from './flight-client.js';
import { GrpcMessageSplitter } from './grpc-message-splitter.js';
import { GrpcStatusError } from './grpc-status-error.js';

const DO_GET_PATH = '/arrow.flight.protocol.FlightService/DoGet';

export interface Http2DoGetClientOptions {
  /** The Flight server's `host:port`. */
  readonly address: string;
  /** Mutual TLS: the CA the server's certificate must chain to, and this side's certificate and key. Plaintext when undefined. */
  readonly tls?: { readonly ca: Buffer; readonly cert: Buffer; readonly key: Buffer } | undefined;
  /** HTTP/2 flow-control window of the connection and of each stream (default 16 MiB, as FlightClient's). */
  readonly flowControlWindowBytes?: number;
  /** How long `close()` lets calls still open finish before it drops the connection (default 2 s). */
  readonly closeWaitMs?: number;
}

/**
 * Flight DoGet over Node's own HTTP/2 client, without grpc-js's channel, call and
 * interceptor layers: a scheduler's scan legs are one DoGet each, and grpc-js spent about a
 * millisecond of the scheduler's thread on each small one (measured against this client on
 * the same server, docs/performance.md). The wire is the same gRPC call (path, framing,
 * `te: trailers`, status in trailers), so any Flight server answers it; only DoGet is here.
 * One HTTP/2 connection per server, opened on first use and replaced once it closes.
 */
export class Http2DoGetClient {
  readonly #options: Http2DoGetClientOptions;
  readonly #windowBytes: number;
  #session: http2.ClientHttp2Session | undefined;
  #activeCalls = 0;
  #closed = false;

  constructor(options: Http2DoGetClientOptions) {
    this.#options = options;
    this.#windowBytes = options.flowControlWindowBytes ?? 16 * 1024 * 1024;
  }

  /**
   * Redeems a ticket; resolves once the response headers and the schema message arrived, and
   * rejects with a GrpcStatusError when the server refuses it. Aborting `signal` cancels the
   * call at any point (the server sees the stream cancelled and stops the query).
   */
  async doGet(ticket: Uint8Array, options: DoGetOptions = {}): Promise<FlightStream> {
    if (this.#closed) throw new GrpcStatusError(grpc.status.UNAVAILABLE, `the client for ${this.#options.address} was closed`);
    const session = this.#connect();
    const call = session.request({ ':method': 'POST', ':path': DO_GET_PATH, 'content-type': 'application/grpc', te: 'trailers', ...options.headers });
    this.#started(call);
    const outcome = new CallOutcome(call);
    const { signal } = options;
    const cancel = () => outcome.cancel();
    if (signal?.aborted) cancel();
    else if (signal) {
      signal.addEventListener('abort', cancel, { once: true });
      call.once('close', () => signal.removeEventListener('abort', cancel));
    }
    let body = framedTickets.get(ticket);
    if (!body) {
      body = grpcFrame(toBinary(TicketSchema, create(TicketSchema, { ticket })));
      framedTickets.set(ticket, body);
    }
    call.end(body);
    const { schema, batches } = await readRecordBatches(outcome.messages());
    return {
      // Built when asked: the scan legs never read them.
      get headers() {
        return outcome.responseMetadata();
      },
      schema,
      batches,
      pause: () => call.pause(),
      resume: () => call.resume(),
      cancel,
    };
  }

  /**
   * Closes the connection once its calls have ended (at most `closeWaitMs`: a stream nobody
   * reads or cancels would hold it open); resolves when it is closed.
   */
  close(): Promise<void> {
    this.#closed = true;
    const session = this.#session;
    this.#session = undefined;
    if (session === undefined || session.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => session.destroy(), this.#options.closeWaitMs ?? 2_000);
      session.close(() => {
        clearTimeout(force);
        resolve();
      });
    });
  }

  #connect(): http2.ClientHttp2Session {
    const current = this.#session;
    if (current !== undefined && !current.closed && !current.destroyed) return current;
    const { address, tls } = this.#options;
    const session = http2.connect(`${tls ? 'https' : 'http'}://${address}`, {
      ...(tls ? { ca: tls.ca, cert: tls.cert, key: tls.key } : {}),
      settings: { initialWindowSize: this.#windowBytes },
      // As grpc-js does: Node's accounting of session memory refuses new streams under load
      // long before memory is short; the flow-control windows bound what a stream buffers.
      maxSessionMemory: Number.MAX_SAFE_INTEGER,
    });
    session.once('connect', () => session.setLocalWindowSize(this.#windowBytes));
    // A failed or lost connection fails the calls on it (each sees its stream's error); the
    // next call opens a new one.
    session.on('error', () => undefined);
    const forget = () => {
      if (this.#session === session) this.#session = undefined;
    };
    session.once('close', forget);
    session.once('goaway', forget);
    if (this.#activeCalls === 0) session.unref();
    this.#session = session;
    return session;
  }

  /** An idle connection does not keep the process alive; one with calls running does. */
  #started(call: http2.ClientHttp2Stream): void {
    if (this.#activeCalls++ === 0) this.#session?.ref();
    call.once('close', () => {
      if (--this.#activeCalls === 0) this.#session?.unref();
    });
  }
}

/**
 * Request bodies by ticket: a caller redeeming the same ticket bytes again (the scheduler's
 * legs of a repeated query, cluster-source.ts) sends the body framed the first time (protobuf
 * encoding costs ~20 µs a call). Bodies are only read by the streams they are written to.
 */
const framedTickets = new WeakMap<Uint8Array, Buffer>();

/** A gRPC message: the uncompressed flag, its length, then the message. */
function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(GRPC_PREFIX_BYTES + message.byteLength);
  writeGrpcPrefix(frame, message.byteLength);
  frame.set(message, GRPC_PREFIX_BYTES);
  return frame;
}

/** One DoGet call's response: its messages as Arrow IPC, then its gRPC status. */
class CallOutcome {
  readonly #call: http2.ClientHttp2Stream;
  #responseHeaders: http2.IncomingHttpHeaders | undefined;
  #statusHeaders: http2.IncomingHttpHeaders | undefined;
  #streamError: Error | undefined;
  #cancelled = false;

  constructor(call: http2.ClientHttp2Stream) {
    this.#call = call;
    call.once('response', (headers) => {
      this.#responseHeaders = headers;
      // A trailers-only response (an error before any message) carries the status here.
      if (headers['grpc-status'] !== undefined) this.#statusHeaders = headers;
    });
    call.once('trailers', (trailers) => (this.#statusHeaders = trailers));
    // Kept for the reader; without a listener a reset stream would be an uncaught error.
    call.on('error', (error) => (this.#streamError ??= error));
  }

  cancel(): void {
    this.#cancelled = true;
    if (!this.#call.closed) this.#call.close(http2.constants.NGHTTP2_CANCEL);
    // A call the server has already ended can still hold data nobody read (a leg dropped after
    // its schema, a LIMIT met early): until it is destroyed, its HTTP/2 session cannot close,
    // and the executor's listener waits for that session when it shuts down.
    if (!this.#call.destroyed) this.#call.destroy();
  }

  responseMetadata(): grpc.Metadata {
    return metadataOf(this.#responseHeaders ?? {});
  }

  async *messages(): AsyncGenerator<InboundIpcMessage> {
    const splitter = new GrpcMessageSplitter();
    let ended = false;
    try {
      for await (const chunk of this.#call) {
        for (const bytes of splitter.push(chunk as Buffer)) {
          const message = decodeFlightData(bytes);
          if (message.header.byteLength > 0) yield { header: message.header, body: message.body };
        }
      }
      ended = true;
    } catch (error) {
      throw this.#failure(error as Error);
    } finally {
      // Abandoned before its end (the reader stopped or failed): the server stops too.
      if (!ended) this.cancel();
    }
    if (!this.#call.closed) await new Promise((resolve) => this.#call.once('close', resolve));
    const failure = this.#status();
    if (failure) throw failure;
    if (splitter.pending) throw new GrpcStatusError(grpc.status.INTERNAL, `the DoGet response ended inside a message (${splitter.pending} bytes of it)`);
  }

  /** Undefined for OK; the server's status otherwise, or why there was none. */
  #status(): GrpcStatusError | undefined {
    if (this.#cancelled) return new GrpcStatusError(grpc.status.CANCELLED, 'Cancelled on client');
    const headers = this.#statusHeaders;
    if (headers === undefined) {
      const status = this.#responseHeaders?.[':status'];
      if (status !== undefined && Number(status) !== 200) return new GrpcStatusError(grpc.status.UNKNOWN, `the server answered HTTP ${status}, not a gRPC response`);
      return new GrpcStatusError(grpc.status.UNAVAILABLE, this.#streamError ? `the stream failed: ${this.#streamError.message}` : 'the stream ended without a gRPC status');
    }
    const code = Number(headers['grpc-status']);
    if (code === grpc.status.OK) return undefined;
    const details = decodeGrpcMessage(String(headers['grpc-message'] ?? ''));
    return new GrpcStatusError(Number.isInteger(code) && code in grpc.status ? code : grpc.status.UNKNOWN, details, metadataOf(headers));
  }

  #failure(error: Error): Error {
    if (error instanceof GrpcStatusError) return error;
    return this.#status() ?? new GrpcStatusError(grpc.status.INTERNAL, error.message);
  }
}

/** Custom (non-pseudo, non-gRPC) headers as grpc-js Metadata, the way FlightClient reports them. */
function metadataOf(headers: http2.IncomingHttpHeaders): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || name === 'content-type' || name.startsWith('grpc-') || value === undefined) continue;
    // Binary metadata (`-bin`) travels base64-encoded.
    for (const item of Array.isArray(value) ? value : [value]) metadata.add(name, name.endsWith('-bin') ? Buffer.from(item, 'base64') : item);
  }
  return metadata;
}

/** grpc-message is percent-encoded (the gRPC HTTP/2 spec); a malformed one is shown as sent. */
function decodeGrpcMessage(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
