import type * as grpc from '@grpc/grpc-js';
import type { PartitionValue } from '../partition-keys.js';

/**
 * The node-to-node service (`quarry.cluster.Node`), on its own listener. Messages are JSON:
 * the calls are few and small (an app definition, a heartbeat), and JSON keeps them readable
 * in logs; query data between nodes travels as Arrow over Flight SQL instead (an executor's
 * node listener hosts the Flight SQL service).
 */
export interface AppDefinitionRequest {
  readonly node_id: string;
}

export interface AppDefinition {
  /**
   * The scheduler's manifest as written, without `runtime.scheduler` (the state store and its
   * credentials are the schedulers' alone). `${ secrets:... }` references are sent unresolved:
   * an executor resolves them from its own secret stores, so no secret value crosses the wire.
   */
  readonly manifest_yaml: string;
  /** Where the scheduler resolves relative paths; an executor uses it when it exists there too. */
  readonly base_directory: string;
  /** How long an executor's heartbeat lives; it beats every third of it. */
  readonly heartbeat_ttl_ms: number;
}

export interface HeartbeatRequest {
  readonly node_id: string;
  /**
   * Where schedulers reach the executor's node listener (`host:port`): Flight SQL over mutual
   * TLS, for partition scans and routed writes. Stored as the member's address.
   */
  readonly node_endpoint: string;
}

export interface HeartbeatReply {
  readonly heartbeat_ttl_ms: number;
  /** The cluster document's revision the ownership below was read at. */
  readonly revision: number;
  /** The partitions this executor owns, by dataset. */
  readonly partitions: Readonly<Record<string, PartitionValue[][]>>;
}

const toJson = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const fromJson = <T>(buffer: Buffer): T => JSON.parse(buffer.toString('utf8')) as T;

function unaryMethod<Request, Reply>(name: string): grpc.MethodDefinition<Request, Reply> {
  return {
    path: `/quarry.cluster.Node/${name}`,
    requestStream: false,
    responseStream: false,
    requestSerialize: toJson,
    requestDeserialize: fromJson<Request>,
    responseSerialize: toJson,
    responseDeserialize: fromJson<Reply>,
  };
}

export const nodeServiceDefinition = {
  getAppDefinition: unaryMethod<AppDefinitionRequest, AppDefinition>('GetAppDefinition'),
  heartbeat: unaryMethod<HeartbeatRequest, HeartbeatReply>('Heartbeat'),
};
