import * as grpc from '@grpc/grpc-js';
import { QuarryError, toQuarryError } from '../../../core/errors/quarry-error.js';
import { formatAddress, parseListenAddress } from '../../../core/listeners/address.js';
import type { Logger } from '../../../core/log.js';
import { nodeServerCredentials, type NodeTlsMaterial } from './node-credentials.js';
import {
  executorServiceDefinition,
  nodeServiceDefinition,
  type AppDefinition,
  type AppDefinitionRequest,
  type ApplyWriteReply,
  type ApplyWriteRequest,
  type HeartbeatReply,
  type HeartbeatRequest,
  type ListWritesReply,
  type ListWritesRequest,
  type ReadWriteRequest,
} from './node-protocol.js';

export interface NodeHandlers {
  getAppDefinition(request: AppDefinitionRequest): Promise<AppDefinition>;
  heartbeat(request: HeartbeatRequest): Promise<HeartbeatReply>;
  listWrites(request: ListWritesRequest): Promise<ListWritesReply>;
  readWrite(request: ReadWriteRequest): Promise<Buffer>;
}

export interface ExecutorHandlers {
  applyWrite(request: ApplyWriteRequest): Promise<ApplyWriteReply>;
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

/** A unary handler whose failures leave as the QuarryError's gRPC status, `[CODE] message`. */
function unaryHandler<Request, Reply>(log: Logger, name: string, handler: (request: Request) => Promise<Reply>): grpc.handleUnaryCall<Request, Reply> {
  return (call, callback) => {
    handler(call.request).then((reply) => callback(null, reply), (error: unknown) => {
      const failure = toQuarryError(error);
      log.warn('node call failed', { call: name, code: failure.code, error: failure.message });
      callback({ code: failure.grpcStatus, details: `[${failure.code}] ${failure.message}` });
    });
  };
}

/** `quarry.cluster.Node` (GetAppDefinition, Heartbeat, ListWrites, ReadWrite), answered by a scheduler. */
export function nodeProtocolService(handlers: NodeHandlers, log: Logger): HostedService {
  return {
    definition: nodeServiceDefinition as unknown as grpc.ServiceDefinition,
    implementation: {
      getAppDefinition: unaryHandler(log, 'GetAppDefinition', handlers.getAppDefinition),
      heartbeat: unaryHandler(log, 'Heartbeat', handlers.heartbeat),
      listWrites: unaryHandler(log, 'ListWrites', handlers.listWrites),
      readWrite: unaryHandler(log, 'ReadWrite', handlers.readWrite),
    },
  };
}

/** `quarry.cluster.Executor` (ApplyWrite), answered by an executor. */
export function executorProtocolService(handlers: ExecutorHandlers, log: Logger): HostedService {
  return {
    definition: executorServiceDefinition as unknown as grpc.ServiceDefinition,
    implementation: { applyWrite: unaryHandler(log, 'ApplyWrite', handlers.applyWrite) },
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
      // After the grace period the sessions are destroyed and the close is done: grpc-js calls
      // tryShutdown's callback only once every connection has ended, which a peer keeping its
      // side of one open (an unread stream on it) would postpone for ever.
      const force = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, 2_000);
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    }),
  };
}
