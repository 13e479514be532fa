import * as grpc from '@grpc/grpc-js';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import { nodeChannelCredentials, type NodeTlsMaterial } from './node-credentials.js';
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

const NodeClientConstructor = grpc.makeGenericClientConstructor(nodeServiceDefinition as unknown as grpc.ServiceDefinition, 'Node');
const ExecutorClientConstructor = grpc.makeGenericClientConstructor(executorServiceDefinition as unknown as grpc.ServiceDefinition, 'Executor');

/** Write-log objects are as large as the writes: no 4 MiB cap on what a node receives. */
const CHANNEL_OPTIONS: grpc.ChannelOptions = { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1 };

function unaryCall<Reply>(client: grpc.Client, method: string, request: unknown, timeoutMs: number, peer: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const call = (client as unknown as Record<string, unknown>)[method] as (request: unknown, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, reply?: Reply) => void) => void;
    call.call(client, request, { deadline: Date.now() + timeoutMs }, (error, reply) => {
      if (error) reject(new QuarryError('CLUSTER_NODE_UNREACHABLE', `${peer}: ${error.details || error.message}`, { cause: error }));
      else resolve(reply as Reply);
    });
  });
}

/** `grpc://host:port`, `grpcs://`, `grpc+tls://`, `http(s)://` or bare `host:port`: the `host:port` part. */
export function schedulerTarget(address: string): string {
  const match = /^(?:[a-z+]+:\/\/)?([^/]+?)\/?$/i.exec(address.trim());
  if (!match || !/:\d+$/.test(match[1]!)) {
    throw new QuarryError('CLUSTER_CONFIG_INVALID', `--scheduler-address "${address}" is not a node address; expected host:port or a URL such as grpc://scheduler-1:50052`);
  }
  return match[1]!;
}

/** Calls a peer's node listener (a scheduler, from an executor). */
export class NodeClient {
  readonly target: string;
  readonly #client: grpc.Client;

  constructor(address: string, tls: NodeTlsMaterial | undefined) {
    this.target = schedulerTarget(address);
    this.#client = new NodeClientConstructor(this.target, nodeChannelCredentials(tls), CHANNEL_OPTIONS);
  }

  getAppDefinition(request: AppDefinitionRequest, timeoutMs = 10_000): Promise<AppDefinition> {
    return this.#call('getAppDefinition', request, timeoutMs);
  }

  heartbeat(request: HeartbeatRequest, timeoutMs = 10_000): Promise<HeartbeatReply> {
    return this.#call('heartbeat', request, timeoutMs);
  }

  listWrites(request: ListWritesRequest, timeoutMs = 30_000): Promise<ListWritesReply> {
    return this.#call('listWrites', request, timeoutMs);
  }

  readWrite(request: ReadWriteRequest, timeoutMs = 60_000): Promise<Buffer> {
    return this.#call('readWrite', request, timeoutMs);
  }

  close(): void {
    this.#client.close();
  }

  #call<Reply>(method: string, request: unknown, timeoutMs: number): Promise<Reply> {
    return unaryCall(this.#client, method, request, timeoutMs, `scheduler ${this.target}`);
  }
}

/** Calls an executor's `quarry.cluster.Executor` service (a scheduler applying a write). */
export class ExecutorClient {
  readonly target: string;
  readonly #client: grpc.Client;

  constructor(address: string, tls: NodeTlsMaterial | undefined) {
    this.target = address;
    this.#client = new ExecutorClientConstructor(address, nodeChannelCredentials(tls), CHANNEL_OPTIONS);
  }

  /** Waits long: the executor applies a write only once a reload of the dataset it may be running has finished. */
  applyWrite(request: ApplyWriteRequest, timeoutMs = 120_000): Promise<ApplyWriteReply> {
    return unaryCall(this.#client, 'applyWrite', request, timeoutMs, `executor ${this.target}`);
  }

  close(): void {
    this.#client.close();
  }
}
