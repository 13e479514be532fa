import { create, type MessageInitShape } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { Table, type RecordBatch, type Schema } from 'apache-arrow';
import { decodeFlightData, encodeFlightData } from '../flight-data.js';
import {
  ActionSchema,
  CriteriaSchema,
  EmptySchema,
  FlightDescriptorSchema,
  FlightService,
  HandshakeRequestSchema,
  TicketSchema,
  type ActionType,
  type FlightDescriptor,
  type FlightInfo,
  type HandshakeResponse,
  type PutResult,
  type Result,
  type SchemaResult,
} from '../generated/arrow/flight/protocol/flight_pb.js';
import { grpcServiceDefinition } from '../grpc-service-definition.js';
import { decodeEncapsulatedSchema, readRecordBatches } from '../ipc/flight-message-reader.js';
import { FlightMessageWriter } from '../ipc/flight-message-writer.js';

export interface FlightClientOptions {
  /** `host:port`, `grpc://host:port` or `grpc+tls://host:port`. */
  readonly endpoint: string;
  /** PEM root certificates for TLS (system roots when omitted). */
  readonly rootCertificates?: string | Buffer;
  /** Channel credentials to use as given (e.g. mutual TLS with a client certificate); beats `rootCertificates`. */
  readonly channelCredentials?: grpc.ChannelCredentials;
  /** Metadata sent with every call (e.g. `cache-control`). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Bearer token sent as `authorization` (set by `handshake` too). */
  readonly token?: string;
  /**
   * HTTP/2 flow-control window (default 16 MiB). gRPC's default of 64 KiB makes every
   * 4 MiB FlightData wait for ~64 WINDOW_UPDATE round trips; smaller windows make a paused
   * reader hold back the server sooner.
   */
  readonly flowControlWindowBytes?: number;
}

export interface DoGetOptions {
  /** Extra metadata for this call (e.g. `cache-control`). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** A DoGet in progress: response headers, the schema, then batches as they arrive. */
export interface FlightStream {
  /** Initial metadata of the response (`x-cache`, ...). */
  readonly headers: grpc.Metadata;
  readonly schema: Schema;
  readonly batches: AsyncIterable<RecordBatch>;
  /** Stops reading (the client side of flow control: the server stops too). */
  pause(): void;
  resume(): void;
  /** Cancels the call; the server stops the query. */
  cancel(): void;
}

const FlightServiceClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(FlightService), 'FlightService');
type Rpc = (...args: unknown[]) => unknown;

function parseEndpoint(endpoint: string): { address: string; tls: boolean } {
  const match = /^(grpc(?:\+tls|\+tcp)?):\/\/(.+)$/.exec(endpoint);
  return match ? { address: match[2]!, tls: match[1] === 'grpc+tls' } : { address: endpoint, tls: false };
}

/**
 * A small typed Arrow Flight client over grpc-js, for tests, benchmarks and the CLI.
 * FlightData is framed with the same hand-written codec the server uses.
 */
export class FlightClient {
  readonly #client: grpc.Client & Record<string, Rpc>;
  readonly #headers: Record<string, string>;
  #token: string | undefined;

  constructor(options: FlightClientOptions) {
    const { address, tls } = parseEndpoint(options.endpoint);
    const credentials = options.channelCredentials ?? (tls || options.rootCertificates
      ? grpc.credentials.createSsl(options.rootCertificates ? Buffer.from(options.rootCertificates) : null)
      : grpc.credentials.createInsecure());
    this.#client = new FlightServiceClient(address, credentials, {
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      'grpc-node.flow_control_window': options.flowControlWindowBytes ?? 16 * 1024 * 1024,
    }) as never;
    this.#headers = { ...options.headers };
    this.#token = options.token;
  }

  get token(): string | undefined {
    return this.#token;
  }

  set token(token: string | undefined) {
    this.#token = token;
  }

  metadata(extra: Readonly<Record<string, string>> = {}): grpc.Metadata {
    const metadata = new grpc.Metadata();
    for (const [name, value] of Object.entries({ ...this.#headers, ...extra })) metadata.set(name, value);
    if (this.#token !== undefined && !('authorization' in extra)) metadata.set('authorization', `Bearer ${this.#token}`);
    return metadata;
  }

  #unary<Response>(method: string, request: unknown, extra?: Readonly<Record<string, string>>): Promise<Response> {
    return new Promise((resolve, reject) => {
      this.#client[method]!(request, this.metadata(extra), (error: grpc.ServiceError | null, response: Response) => (error ? reject(error) : resolve(response)));
    });
  }

  async #collect<Response>(stream: grpc.ClientReadableStream<Response>): Promise<Response[]> {
    const items: Response[] = [];
    for await (const item of stream) items.push(item as Response);
    return items;
  }

  /** Basic auth handshake (what ADBC/JDBC do); keeps the returned bearer token for later calls. */
  async handshake(username: string, password: string): Promise<string | undefined> {
    const basic = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    const call = (this.#client['Handshake'] as Rpc)(this.metadata({ authorization: basic })) as grpc.ClientDuplexStream<unknown, HandshakeResponse>;
    const headers = new Promise<grpc.Metadata>((resolve) => call.once('metadata', resolve));
    call.write(create(HandshakeRequestSchema, {}));
    call.end();
    await this.#collect(call);
    const authorization = (await headers).get('authorization')[0];
    const token = typeof authorization === 'string' ? authorization.replace(/^bearer\s+/i, '') : undefined;
    if (token !== undefined) this.#token = token;
    return token;
  }

  getFlightInfo(descriptor: MessageInitShape<typeof FlightDescriptorSchema>, extra?: Record<string, string>): Promise<FlightInfo> {
    return this.#unary('GetFlightInfo', create(FlightDescriptorSchema, descriptor), extra);
  }

  async getSchema(descriptor: MessageInitShape<typeof FlightDescriptorSchema>): Promise<Schema> {
    const result = await this.#unary<SchemaResult>('GetSchema', create(FlightDescriptorSchema, descriptor));
    return decodeEncapsulatedSchema(result.schema);
  }

  /**
   * Redeems a ticket; resolves once the response headers and the schema message arrived.
   * Aborting `signal` cancels the call at any point (the server stops the query).
   */
  async doGet(ticket: Uint8Array, options: DoGetOptions = {}): Promise<FlightStream> {
    const call = (this.#client['DoGet'] as Rpc)(create(TicketSchema, { ticket }), this.metadata(options.headers)) as grpc.ClientReadableStream<Buffer>;
    const { signal } = options;
    if (signal) {
      if (signal.aborted) call.cancel();
      else signal.addEventListener('abort', () => call.cancel(), { once: true });
    }
    const headers = new Promise<grpc.Metadata>((resolve) => call.once('metadata', resolve));
    async function* messages() {
      for await (const raw of call) {
        const message = decodeFlightData(raw as Buffer);
        if (message.header.byteLength > 0) yield { header: message.header, body: message.body };
      }
    }
    const { schema, batches } = await readRecordBatches(messages());
    return {
      headers: await headers,
      schema,
      batches,
      pause: () => call.pause(),
      resume: () => call.resume(),
      cancel: () => call.cancel(),
    };
  }

  /** Reads a whole ticket into an Arrow Table. */
  async doGetTable(ticket: Uint8Array, options: DoGetOptions = {}): Promise<{ table: Table; headers: grpc.Metadata }> {
    const stream = await this.doGet(ticket, options);
    const batches: RecordBatch[] = [];
    for await (const batch of stream.batches) batches.push(batch);
    return { table: batches.length > 0 ? new Table(batches) : new Table(stream.schema), headers: stream.headers };
  }

  /**
   * Uploads batches under a descriptor and collects the server's PutResults. With no
   * schema the stream carries only the descriptor (what SQL updates send).
   */
  async doPut(descriptor: FlightDescriptor | MessageInitShape<typeof FlightDescriptorSchema>, upload?: { schema: Schema; batches: Iterable<RecordBatch> | AsyncIterable<RecordBatch> }): Promise<PutResult[]> {
    const call = (this.#client['DoPut'] as Rpc)(this.metadata()) as grpc.ClientDuplexStream<Buffer, PutResult>;
    const results = this.#collect(call);
    results.catch(() => undefined);
    const write = async (bytes: Buffer) => {
      if (!call.write(bytes)) await new Promise((resolve) => call.once('drain', resolve));
    };
    const flightDescriptor = create(FlightDescriptorSchema, descriptor as MessageInitShape<typeof FlightDescriptorSchema>);
    if (!upload) {
      await write(encodeFlightData({ descriptor: flightDescriptor }));
    } else {
      const writer = new FlightMessageWriter();
      let first = true;
      for (const message of writer.schemaMessages(upload.schema)) {
        await write(encodeFlightData({ descriptor: first ? flightDescriptor : undefined, header: message.header, body: message.body }));
        first = false;
      }
      for await (const batch of upload.batches) {
        for (const message of writer.batchMessages(batch)) await write(encodeFlightData({ header: message.header, body: message.body }));
      }
    }
    call.end();
    return results;
  }

  async doAction(type: string, body: Uint8Array = new Uint8Array()): Promise<Result[]> {
    const call = (this.#client['DoAction'] as Rpc)(create(ActionSchema, { type, body }), this.metadata()) as grpc.ClientReadableStream<Result>;
    return this.#collect(call);
  }

  async listActions(): Promise<ActionType[]> {
    return this.#collect((this.#client['ListActions'] as Rpc)(create(EmptySchema, {}), this.metadata()) as grpc.ClientReadableStream<ActionType>);
  }

  async listFlights(): Promise<FlightInfo[]> {
    return this.#collect((this.#client['ListFlights'] as Rpc)(create(CriteriaSchema, {}), this.metadata()) as grpc.ClientReadableStream<FlightInfo>);
  }

  /** The raw grpc-js client, for calls this wrapper does not cover (tests of odd inputs). */
  get grpcClient(): grpc.Client & Record<string, Rpc> {
    return this.#client;
  }

  close(): void {
    this.#client.close();
  }
}
