import * as grpc from '@grpc/grpc-js';
import { request as httpsRequest, type Agent } from 'node:https';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import * as sql from '../../core/flight/generated/arrow/flight/protocol/sql/flight_sql_pb.js';
import { create } from '@bufbuild/protobuf';
import { packAny } from '../../core/flight/flight-any.js';
import { FlightDescriptorSchema, FlightDescriptor_DescriptorType, FlightService, type FlightInfo } from '../../core/flight/generated/arrow/flight/protocol/flight_pb.js';
import { grpcServiceDefinition } from '../../core/flight/grpc-service-definition.js';

/** PEM text a TLS client may present and trust. */
export interface ClientTls {
  /** The CA that signed the server certificate. */
  readonly ca: string;
  /** A client certificate and its key (mTLS). */
  readonly cert?: string | undefined;
  readonly key?: string | undefined;
}

export interface HttpsAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** CN of the certificate the server presented on this connection. */
  readonly serverCommonName: string | undefined;
  /** True when the request went over a kept-alive connection opened earlier. */
  readonly reusedSocket: boolean;
}

/** One HTTPS request with node:https (fetch cannot present client certificates). */
export function https(url: string, options: ClientTls & { method?: string; headers?: Record<string, string>; body?: string; agent?: Agent }): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      ...(options.agent ? { agent: options.agent } : { ca: options.ca, cert: options.cert, key: options.key, agent: false }),
      servername: 'localhost',
    }, (response) => {
      // Read now: a keep-alive agent takes the socket back once the body ends.
      const serverName = commonName((response.socket as TLSSocket).getPeerCertificate()?.subject?.CN);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          serverCommonName: serverName,
          reusedSocket: request.reusedSocket,
        });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

function commonName(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The CN of the certificate a new TLS connection to `endpoint` (`host:port`) is shown. */
export function serverCommonName(endpoint: string, ca: string, alpn: string[] = ['h2', 'http/1.1']): Promise<string | undefined> {
  const [host, port] = splitEndpoint(endpoint);
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host, port, ca, servername: 'localhost', ALPNProtocols: alpn }, () => {
      const name = commonName(socket.getPeerCertificate().subject?.CN);
      socket.end();
      resolve(name);
    });
    socket.on('error', reject);
  });
}

function splitEndpoint(endpoint: string): [string, number] {
  const withoutScheme = endpoint.replace(/^[a-z+]+:\/\//, '');
  const colon = withoutScheme.lastIndexOf(':');
  return [withoutScheme.slice(0, colon), Number(withoutScheme.slice(colon + 1))];
}

const FlightServiceClient = grpc.makeGenericClientConstructor(grpcServiceDefinition(FlightService), 'FlightService');

/** A bare Flight client that can present a client certificate (the project's FlightClient cannot yet). */
export interface MutualTlsFlightClient {
  /** GetFlightInfo for a SQL query: admitted like every call, plans the statement. */
  queryInfo(query: string, metadata?: Record<string, string>): Promise<FlightInfo>;
  close(): void;
}

export function mutualTlsFlightClient(endpoint: string, tls: ClientTls): MutualTlsFlightClient {
  const credentials = grpc.credentials.createSsl(
    Buffer.from(tls.ca),
    tls.key ? Buffer.from(tls.key) : null,
    tls.cert ? Buffer.from(tls.cert) : null,
  );
  const client = new FlightServiceClient(endpoint.replace(/^grpc(\+tls)?:\/\//, ''), credentials, { 'grpc.ssl_target_name_override': 'localhost' }) as grpc.Client & Record<string, (...args: unknown[]) => unknown>;
  return {
    queryInfo: (query, headers = {}) =>
      new Promise((resolve, reject) => {
        const metadata = new grpc.Metadata();
        for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
        const descriptor = create(FlightDescriptorSchema, { type: FlightDescriptor_DescriptorType.CMD, cmd: packAny(sql.CommandStatementQuerySchema, { query }) });
        client['GetFlightInfo']!(descriptor, metadata, { deadline: Date.now() + 5_000 }, (error: grpc.ServiceError | null, info: FlightInfo) => (error ? reject(error) : resolve(info)));
      }),
    close: () => client.close(),
  };
}
