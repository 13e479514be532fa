import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from '../arguments.js';
import { UnsupportedEndpointError, UsageError } from '../errors.js';
import { HttpClient } from '../http/http-client.js';
import { HttpQueryTransport } from './http-query-transport.js';
import type { QueryTransport } from './query-transport.js';

/** Picks the transport for the endpoint's protocol: the one place a Flight transport will plug in. */
export function createQueryTransport(connection: ConnectionOptions): QueryTransport {
  const { endpoint } = connection;
  switch (endpoint.protocol) {
    case 'http':
      return new HttpQueryTransport(createHttpClient(connection));
    case 'flight':
      throw new UnsupportedEndpointError(
        `${endpoint.display}: Arrow Flight endpoints (grpc://, grpc+tls://) are not supported by this client yet; ` +
          'use the HTTP endpoint, e.g. --endpoint http://127.0.0.1:8090',
      );
  }
}

export function createHttpClient(connection: ConnectionOptions): HttpClient {
  return new HttpClient({ endpoint: connection.endpoint, apiKey: connection.apiKey, caCertificate: readCaCertificate(connection.caCertificateFile) });
}

function readCaCertificate(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --tls-root-certificate-file ${path}: ${(error as Error).message}`);
  }
}
