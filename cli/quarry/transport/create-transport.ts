import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from '../arguments.js';
import { UsageError } from '../errors.js';
import { HttpClient } from '../http/http-client.js';
import { HttpQueryTransport } from './http-query-transport.js';
import type { QueryTransport } from './query-transport.js';

/** Picks the transport for the endpoint's protocol: Flight SQL for grpc(+tls)://, the HTTP API for http(s)://. */
export async function createQueryTransport(connection: ConnectionOptions): Promise<QueryTransport> {
  const { endpoint, apiKey } = connection;
  switch (endpoint.protocol) {
    case 'http':
      return new HttpQueryTransport(createHttpClient(connection));
    case 'flight': {
      // Loaded on demand: grpc-js and the Flight codecs cost start-up time HTTP users need not pay.
      const { FlightQueryTransport } = await import('./flight-query-transport.js');
      return new FlightQueryTransport({ endpoint, apiKey, headers: connection.headers, caCertificate: readCaCertificate(connection.caCertificateFile) });
    }
  }
}

export function createHttpClient(connection: ConnectionOptions): HttpClient {
  return new HttpClient({ endpoint: connection.endpoint, apiKey: connection.apiKey, headers: connection.headers, caCertificate: readCaCertificate(connection.caCertificateFile) });
}

function readCaCertificate(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --tls-root-certificate-file ${path}: ${(error as Error).message}`);
  }
}
