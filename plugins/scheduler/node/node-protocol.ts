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
  /**
   * Per dataset, how many times the executor's table changed (loads, refreshes, applied writes).
   * A scheduler drops its cached results of a dataset when its count moves. Optional: absent
   * from an executor that sends none.
   */
  readonly data_versions?: Readonly<Record<string, number>>;
}

export interface HeartbeatReply {
  readonly heartbeat_ttl_ms: number;
  /** The cluster document's revision the ownership below was read at. */
  readonly revision: number;
  /** The partitions this executor owns, by dataset. */
  readonly partitions: Readonly<Record<string, PartitionValue[][]>>;
}

/** One accepted write of a dataset in the write log: the rows its scheduler sent one executor. */
export interface WriteEntry {
  /** Unique and immutable; also names the entry's object. */
  readonly id: string;
  /** Ids of the partitions its rows belong to. */
  readonly partitions: readonly string[];
  readonly rows: number;
}

export interface ListWritesRequest {
  readonly dataset: string;
  /** Partition ids: entries holding rows of any of them are listed. */
  readonly partitions: readonly string[];
}

export interface ListWritesReply {
  /** In the order the writes were accepted. */
  readonly entries: readonly WriteEntry[];
}

export interface ReadWriteRequest {
  readonly dataset: string;
  readonly id: string;
}

/** Rows of a write, sent by a scheduler to the executor owning their partitions. */
export interface ApplyWriteRequest {
  readonly dataset: string;
  readonly entry: WriteEntry;
  /** The rows as an Arrow IPC stream. */
  readonly body: Buffer;
}

export interface ApplyWriteReply {
  /** False when the executor already held the entry (it loaded it from the write log). */
  readonly applied: boolean;
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

/** Arrow IPC bytes travel as they are, not inside JSON. */
const rawBytes = (buffer: Buffer): Buffer => buffer;

/** `[4-byte header length][JSON header][body bytes]`: a small header with a binary body. */
function toFramed(value: ApplyWriteRequest): Buffer {
  const header = Buffer.from(JSON.stringify({ dataset: value.dataset, entry: value.entry }));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(header.byteLength);
  return Buffer.concat([length, header, value.body]);
}

function fromFramed(buffer: Buffer): ApplyWriteRequest {
  const headerLength = buffer.readUInt32BE(0);
  const header = JSON.parse(buffer.subarray(4, 4 + headerLength).toString('utf8')) as Omit<ApplyWriteRequest, 'body'>;
  return { ...header, body: buffer.subarray(4 + headerLength) };
}

/** `quarry.cluster.Node`, served by schedulers. */
export const nodeServiceDefinition = {
  getAppDefinition: unaryMethod<AppDefinitionRequest, AppDefinition>('GetAppDefinition'),
  heartbeat: unaryMethod<HeartbeatRequest, HeartbeatReply>('Heartbeat'),
  /** The write-log entries of some partitions (an executor loading its share). */
  listWrites: unaryMethod<ListWritesRequest, ListWritesReply>('ListWrites'),
  /** One entry's rows, Arrow IPC. */
  readWrite: { ...unaryMethod<ReadWriteRequest, Buffer>('ReadWrite'), responseSerialize: rawBytes, responseDeserialize: rawBytes } as grpc.MethodDefinition<ReadWriteRequest, Buffer>,
};

/** `quarry.cluster.Executor`, served by executors on their node listener beside Flight SQL. */
export const executorServiceDefinition = {
  applyWrite: {
    path: '/quarry.cluster.Executor/ApplyWrite',
    requestStream: false,
    responseStream: false,
    requestSerialize: toFramed,
    requestDeserialize: fromFramed,
    responseSerialize: toJson,
    responseDeserialize: fromJson<ApplyWriteReply>,
  } satisfies grpc.MethodDefinition<ApplyWriteRequest, ApplyWriteReply>,
};
