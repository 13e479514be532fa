import * as grpc from '@grpc/grpc-js';
import { QuarryError, toQuarryError } from '../../../core/errors/quarry-error.js';
import { formatAddress, parseListenAddress } from '../../../core/listeners/address.js';
import type { Logger } from '../../../core/log.js';
import { nodeServerCredentials, type NodeTlsMaterial } from './node-credentials.js';
import { nodeServiceDefinition, type AppDefinition, type AppDefinitionRequest, type HeartbeatReply, type HeartbeatRequest } from './node-protocol.js';

export interface NodeHandlers {
  getAppDefinition(request: AppDefinitionRequest): Promise<AppDefinition>;
  heartbeat(request: HeartbeatRequest): Promise<HeartbeatReply>;
}

/** A gRPC service a node listener hosts: `quarry.cluster.Node` on a scheduler, Flight SQL on an executor. */
export interface HostedService {
  readonly definition: grpc.ServiceDefinition;
  readonly implementation: grpc.UntypedServiceImplementation;
}

export interface NodeServer {
  /** The bound `host:port`. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** `quarry.cluster.Node` (GetAppDefinition, Heartbeat), answered by a scheduler. */
export function nodeProtocolService(handlers: NodeHandlers, log: Logger): HostedService {
  const wrap = <Request, Reply>(name: string, handler: (request: Request) => Promise<Reply>): grpc.handleUnaryCall<Request, Reply> => (call, callback) => {
    handler(call.request).then((reply) => callback(null, reply), (error: unknown) => {
      const failure = toQuarryError(error);
      log.warn('node call failed', { call: name, code: failure.code, error: failure.message });
      callback({ code: failure.grpcStatus, details: `[${failure.code}] ${failure.message}` });
    });
  };
  return {
    definition: nodeServiceDefinition as unknown as grpc.ServiceDefinition,
    implementation: {
      getAppDefinition: wrap('GetAppDefinition', handlers.getAppDefinition),
      heartbeat: wrap('Heartbeat', handlers.heartbeat),
    },
  };
}

/**
 * The node listener on `--node-bind-address`: the services given, mutual TLS against the node
 * CA (a peer without a certificate the CA signed fails the handshake, before any call)
 * unless plaintext was explicitly allowed.
 */
export async function startNodeServer(options: { address: string; tls: NodeTlsMaterial | undefined; services: readonly HostedService[]; serverOptions?: grpc.ServerOptions }): Promise<NodeServer> {
  const { host, port } = parseListenAddress(options.address, '--node-bind-address');
  const server = new grpc.Server(options.serverOptions);
  for (const service of options.services) server.addService(service.definition, service.implementation);
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(formatAddress(host, port), nodeServerCredentials(options.tls), (error, bound) => {
      if (error) reject(new QuarryError('LISTENER_FAILED', `cannot listen on ${formatAddress(host, port)} (--node-bind-address): ${error.message}`, { cause: error }));
      else resolve(bound);
    });
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
