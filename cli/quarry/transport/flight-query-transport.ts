import { isIP } from 'node:net';
import { create } from '@bufbuild/protobuf';
import type { ClientUnaryCall, Metadata, ServiceError } from '@grpc/grpc-js';
import type { RecordBatch } from 'apache-arrow';
import type { FlightStream } from '../../../core/flight/client/flight-client.js';
import { FlightSqlClient } from '../../../core/flight/client/flight-sql-client.js';
import { packAny } from '../../../core/flight/flight-any.js';
import { FlightDescriptor_DescriptorType, FlightDescriptorSchema, type FlightInfo } from '../../../core/flight/generated/arrow/flight/protocol/flight_pb.js';
import { CommandStatementQuerySchema } from '../../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { flightAddress, type Endpoint } from '../endpoint.js';
import { CancelledError, RuntimeUnavailableError, TransportError } from '../errors.js';
import { translateFlightError } from './flight-errors.js';
import { servedFromSourceOf, type ArrowQueryResult, type CacheStatus, type QueryOptions, type QueryTransport, type TextFormat, type TextQueryResult } from './query-transport.js';

export interface FlightTransportOptions {
  endpoint: Endpoint;
  /** Sent as `authorization: Bearer <key>` on every call, which quarryd checks like X-API-Key. */
  apiKey: string | undefined;
  /** Metadata sent with every call (`--header`). */
  headers?: Readonly<Record<string, string>>;
  /** PEM text of the CA that signed the runtime's certificate (grpc+tls only). */
  caCertificate: string | undefined;
}

/**
 * Queries over Arrow Flight SQL: CommandStatementQuery → GetFlightInfo → DoGet of the one
 * ticket quarryd hands out, reading record batches as they arrive. JSON and CSV are
 * encoded here with the runtime's own encoders, so `-o json|csv` prints the same bytes as
 * over HTTP.
 */
export class FlightQueryTransport implements QueryTransport {
  private client: FlightSqlClient | undefined;

  constructor(private readonly options: FlightTransportOptions) {}

  get endpoint(): string {
    return this.options.endpoint.display;
  }

  async queryArrow(sql: string, options: QueryOptions): Promise<ArrowQueryResult> {
    const { signal } = options;
    if (signal?.aborted) throw new CancelledError();
    const client = this.connect();
    let stream: FlightStream;
    try {
      const info = await getStatementInfo(client, sql, signal);
      stream = await client.stream(info, signal ? { signal } : {});
    } catch (error) {
      throw this.translate(error, signal);
    }
    return {
      schema: stream.schema,
      batches: this.guarded(stream, signal),
      cacheStatus: cacheStatusOf(stream.headers),
      servedFromSource: servedFromSourceOf((name) => metadataText(stream.headers, name)),
    };
  }

  async queryText(sql: string, format: TextFormat, options: QueryOptions): Promise<TextQueryResult> {
    // Loaded only here: table output and the HTTP transport do not need the encoders.
    const { encodeCsv, encodeJson } = await import('../../../core/http/encoders/index.js');
    const result = await this.queryArrow(sql, options);
    if (!result.schema) throw new TransportError(`${this.endpoint} sent no result schema`);
    const input = { schema: result.schema, batches: result.batches };
    return { chunks: format === 'json' ? encodeJson(input) : encodeCsv(input), cacheStatus: result.cacheStatus, servedFromSource: result.servedFromSource };
  }

  close(): void {
    this.client?.close();
    this.client = undefined;
  }

  /** One gRPC channel for the whole session (the REPL reuses it for every statement). */
  private connect(): FlightSqlClient {
    if (this.client) return this.client;
    const { endpoint, apiKey, caCertificate, headers } = this.options;
    if (endpoint.tls && isIP(endpoint.url.hostname.replace(/^\[|\]$/g, '')) !== 0) silenceIpServerNameWarning();
    this.client = FlightSqlClient.connect({
      endpoint: `${endpoint.tls ? 'grpc+tls' : 'grpc'}://${flightAddress(endpoint)}`,
      rootCertificates: caCertificate,
      token: apiKey,
      headers,
    });
    return this.client;
  }

  private translate(error: unknown, signal: AbortSignal | undefined): Error {
    const translated = translateFlightError(error, this.options.endpoint, signal);
    // grpc-js retries a failed channel with growing back-off (up to minutes) and fails calls
    // at once meanwhile; a fresh channel lets the REPL's next statement find a runtime
    // started in between.
    if (translated instanceof RuntimeUnavailableError) this.close();
    return translated;
  }

  /**
   * Failures after the first batch (or Ctrl-C) surface while reading: translate them like
   * failures before it. A reader that stops early (a closed pipe) cancels the call, so the
   * runtime stops the query instead of streaming into a full window.
   */
  private async *guarded(stream: FlightStream, signal: AbortSignal | undefined): AsyncGenerator<RecordBatch> {
    let finished = false;
    try {
      yield* stream.batches;
      finished = true;
    } catch (error) {
      finished = true;
      const translated = this.translate(error, signal);
      if (!(translated instanceof TransportError || translated instanceof RuntimeUnavailableError)) throw translated;
      // Part of the result already arrived: say so rather than "runtime unavailable".
      throw new TransportError(`the result from ${this.endpoint} broke off before the end: ${translated.message}`, { cause: error });
    } finally {
      if (!finished) stream.cancel();
    }
  }
}

/**
 * GetFlightInfo for the statement, cancelled with the signal. FlightClient's own
 * getFlightInfo takes no signal, so the call is made on its grpc-js client directly.
 */
function getStatementInfo(client: FlightSqlClient, query: string, signal: AbortSignal | undefined): Promise<FlightInfo> {
  const descriptor = create(FlightDescriptorSchema, { type: FlightDescriptor_DescriptorType.CMD, cmd: packAny(CommandStatementQuerySchema, { query }) });
  const getFlightInfo = client.flight.grpcClient['GetFlightInfo'];
  if (!getFlightInfo) return Promise.reject(new TransportError('the Flight client has no GetFlightInfo method'));
  return new Promise<FlightInfo>((resolve, reject) => {
    const call = getFlightInfo.call(client.flight.grpcClient, descriptor, client.flight.metadata(), (error: ServiceError | null, info: FlightInfo) => {
      signal?.removeEventListener('abort', cancel);
      if (error) reject(error);
      else resolve(info);
    }) as ClientUnaryCall;
    // A cancelled call still calls back (with CANCELLED), which the caller turns into CancelledError.
    function cancel() {
      call.cancel();
    }
    if (signal?.aborted) cancel();
    else signal?.addEventListener('abort', cancel, { once: true });
  });
}

let ipServerNameWarningSilenced = false;

/**
 * grpc-js passes the host as the TLS server name even when it is an IP address, and Node
 * then prints a DEP0123 deprecation warning: noise amid query output that users cannot act
 * on (the certificate is still checked against the IP). Only that one warning is dropped.
 */
function silenceIpServerNameWarning(): void {
  if (ipServerNameWarningSilenced) return;
  ipServerNameWarningSilenced = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((...args: unknown[]) => {
    const [, typeOrOptions, code] = args;
    const warningCode = typeof typeOrOptions === 'object' && typeOrOptions !== null ? (typeOrOptions as { code?: unknown }).code : code;
    if (warningCode === 'DEP0123') return;
    emitWarning(...args);
  }) as typeof process.emitWarning;
}

/** quarryd sends `x-cache` (HIT, MISS, STALE, BYPASS) in DoGet's initial metadata, as HTTP sends the header. */
function cacheStatusOf(headers: Metadata): CacheStatus {
  const value = headers.get('x-cache')[0] ?? headers.get('results-cache-status')[0];
  const text = typeof value === 'string' ? value : value?.toString('utf8');
  return text ? text.trim() : undefined;
}

function metadataText(headers: Metadata, name: string): string | undefined {
  const value = headers.get(name)[0];
  return value === undefined ? undefined : String(value);
}
