import * as grpc from '@grpc/grpc-js';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import { nodeChannelCredentials, type NodeTlsMaterial } from './node-credentials.js';
import { nodeServiceDefinition, type AppDefinition, type AppDefinitionRequest, type HeartbeatReply, type HeartbeatRequest } from './node-protocol.js';

const NodeClientConstructor = grpc.makeGenericClientConstructor(nodeServiceDefinition, 'Node');

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
    this.#client = new NodeClientConstructor(this.target, nodeChannelCredentials(tls));
  }

  getAppDefinition(request: AppDefinitionRequest, timeoutMs = 10_000): Promise<AppDefinition> {
    return this.#call('getAppDefinition', request, timeoutMs);
  }

  heartbeat(request: HeartbeatRequest, timeoutMs = 10_000): Promise<HeartbeatReply> {
    return this.#call('heartbeat', request, timeoutMs);
  }

  close(): void {
    this.#client.close();
  }

  #call<Reply>(method: string, request: unknown, timeoutMs: number): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const call = (this.#client as unknown as Record<string, unknown>)[method] as (request: unknown, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, reply?: Reply) => void) => void;
      call.call(this.#client, request, { deadline: Date.now() + timeoutMs }, (error, reply) => {
        if (error) reject(new QuarryError('CLUSTER_NODE_UNREACHABLE', `scheduler ${this.target}: ${error.details || error.message}`, { cause: error }));
        else resolve(reply as Reply);
      });
    });
  }
}
