import type { ServiceDefinition, MethodDefinition } from '@grpc/grpc-js';
import { fromBinary, toBinary, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { FlightDataSchema } from './generated/arrow/flight/protocol/flight_pb.js';

/**
 * Maps a protobuf-es service descriptor to what grpc-js wants (`addService`,
 * `makeGenericClientConstructor`): one entry per RPC, keyed by its name (`DoGet`).
 *
 * FlightData travels as raw bytes in both directions: DoGet/DoPut/DoExchange encode and
 * decode it with core/flight/flight-data.ts, which frames the IPC body by hand instead of
 * copying it through protobuf objects. Every other message goes through protobuf-es.
 */
export function grpcServiceDefinition(service: DescService): ServiceDefinition {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of service.methods) {
    const input = codecFor(method.input);
    const output = codecFor(method.output);
    definition[method.name] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: method.methodKind === 'client_streaming' || method.methodKind === 'bidi_streaming',
      responseStream: method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
      requestSerialize: input.serialize,
      requestDeserialize: input.deserialize,
      responseSerialize: output.serialize,
      responseDeserialize: output.deserialize,
      originalName: method.localName,
    };
  }
  return definition as ServiceDefinition;
}

interface Codec {
  serialize(value: unknown): Buffer;
  deserialize(bytes: Buffer): unknown;
}

const rawBytes: Codec = {
  serialize: (value) => {
    const bytes = value as Uint8Array;
    return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  },
  deserialize: (bytes) => bytes,
};

function codecFor(schema: DescMessage): Codec {
  if (schema.typeName === FlightDataSchema.typeName) return rawBytes;
  return {
    serialize: (value) => {
      const bytes = toBinary(schema, value as never);
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    deserialize: (bytes) => fromBinary(schema, bytes),
  };
}

/** The full gRPC method path, as admission and logs name it. */
export function methodPath(service: DescService, name: string): string {
  return `/${service.typeName}/${name}`;
}
