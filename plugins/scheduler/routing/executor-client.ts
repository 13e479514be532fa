import { FlightSqlClient } from '../../../core/flight/client/flight-sql-client.js';
import { Http2DoGetClient } from '../../../core/flight/client/http2-doget.js';
import { nodeChannelCredentials, type NodeTlsMaterial } from '../node/node-credentials.js';

/** Opens clients to an executor's node listener (`host:port`, its member address). */
export interface ExecutorConnector {
  /** Flight SQL over grpc-js: schemas, writes. */
  flightSql(address: string): FlightSqlClient;
  /** DoGet alone over Node's HTTP/2: the scan legs, one call per leg of every query. */
  doGet(address: string): Http2DoGetClient;
}

/**
 * Scans and writes from a scheduler go to an executor's node listener, over mutual TLS with
 * this node's certificate (plaintext only with --allow-insecure-connections). The executor
 * authenticates the scheduler by that certificate; no API key travels between nodes.
 */
export function executorConnector(tls: NodeTlsMaterial | undefined): ExecutorConnector {
  // One credentials object for every executor: grpc-js shares a channel per target and credentials.
  const channelCredentials = nodeChannelCredentials(tls);
  return {
    flightSql: (address) => FlightSqlClient.connect({ endpoint: address, channelCredentials }),
    doGet: (address) => new Http2DoGetClient({ address, tls }),
  };
}
