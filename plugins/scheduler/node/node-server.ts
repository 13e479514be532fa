import * as grpc from '@grpc/grpc-js';
import { toQuarryError } from '../../../core/errors/quarry-error.js';
import { formatAddress, parseListenAddress } from '../../../core/listeners/address.js';
import type { Logger } from '../../../core/log.js';
import { nodeServerCredentials, type NodeTlsMaterial } from './node-credentials.js';
import { nodeServiceDefinition, type AppDefinition, type AppDefinitionRequest, type HeartbeatReply, type HeartbeatRequest } from './node-protocol.js';

export interface NodeHandlers {
  getAppDefinition(request: AppDefinitionRequest): Promise<AppDefinition>;
  heartbeat(request: HeartbeatRequest): Promise<HeartbeatReply>;
}

export interface NodeServer {
  /** The bound `host:port`. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** The node listener: `quarry.cluster.Node` on `--node-bind-address`, mTLS unless plaintext was allowed. */
export async function startNodeServer(options: { address: string; tls: NodeTlsMaterial | undefined; handlers: NodeHandlers; log: Logger }): Promise<NodeServer> {
  const { host, port } = parseListenAddress(options.address, '--node-bind-address');
  const server = new grpc.Server();
  const wrap = <Request, Reply>(name: string, handler: (request: Request) => Promise<Reply>): grpc.handleUnaryCall<Request, Reply> => (call, callback) => {
    handler(call.request).then((reply) => callback(null, reply), (error: unknown) => {
      const failure = toQuarryError(error);
      options.log.warn('node call failed', { call: name, code: failure.code, error: failure.message });
      callback({ code: failure.grpcStatus, details: `[${failure.code}] ${failure.message}` });
    });
  };
  server.addService(nodeServiceDefinition, {
    getAppDefinition: wrap('GetAppDefinition', options.handlers.getAppDefinition),
    heartbeat: wrap('Heartbeat', options.handlers.heartbeat),
  });
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(formatAddress(host, port), nodeServerCredentials(options.tls), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  return {
    endpoint: formatAddress(host, boundPort),
    close: () => new Promise<void>((resolve) => {
      const force = setTimeout(() => server.forceShutdown(), 2_000);
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    }),
  };
}
