import { FlightSqlClient } from '../../../core/flight/client/flight-sql-client.js';
import { nodeChannelCredentials, type NodeTlsMaterial } from '../node/node-credentials.js';

/** Opens a Flight SQL client to an executor's node listener (`host:port`, its member address). */
export type ExecutorConnector = (address: string) => FlightSqlClient;

/**
 * Scans and writes from a scheduler go to an executor's node listener, over mutual TLS with
 * this node's certificate (plaintext only with --allow-insecure-connections). The executor
 * authenticates the scheduler by that certificate; no API key travels between nodes.
 */
export function executorConnector(tls: NodeTlsMaterial | undefined): ExecutorConnector {
  // One credentials object for every executor: grpc-js shares a channel per target and credentials.
  const channelCredentials = nodeChannelCredentials(tls);
  return (address) => FlightSqlClient.connect({ endpoint: address, channelCredentials });
}
