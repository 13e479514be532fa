import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { FlightDataSchema, type FlightDescriptor, FlightDescriptorSchema } from './generated/arrow/flight/protocol/flight_pb.js';

/**
 * FlightData on the wire. DoGet sends hundreds of megabytes of these, so instead of building
 * protobuf objects (which copies every body) we write the four fields by hand around the
 * IPC message bytes: one allocation and one copy per message.
 *
 *   field 1 flight_descriptor (tag 0x0a), field 2 data_header (tag 0x12),
 *   field 3 app_metadata (tag 0x1a), field 1000 data_body (tag bytes 0xc2 0x3e)
 */
export interface FlightDataParts {
  readonly descriptor?: FlightDescriptor | undefined;
  /** The flatbuffer Message (no continuation marker, no length prefix). */
  readonly header?: Uint8Array | undefined;
  /** The message body, as the chunks the IPC writer produced (already 8-byte padded). */
  readonly body?: readonly Uint8Array[] | undefined;
  readonly appMetadata?: Uint8Array | undefined;
}

const TAG_DESCRIPTOR = 0x0a;
const TAG_HEADER = 0x12;
const TAG_APP_METADATA = 0x1a;
const TAG_BODY = [0xc2, 0x3e] as const;

function varintLength(value: number): number {
  let length = 1;
  while (value >= 0x80) {
    value = Math.floor(value / 128);
    length += 1;
  }
  return length;
}

function writeVarint(target: Buffer, offset: number, value: number): number {
  while (value >= 0x80) {
    target[offset++] = (value % 128) | 0x80;
    value = Math.floor(value / 128);
  }
  target[offset++] = value;
  return offset;
}

function bodyLength(body: readonly Uint8Array[] | undefined): number {
  let length = 0;
  for (const chunk of body ?? []) length += chunk.byteLength;
  return length;
}

/** Size of the encoded FlightData, without encoding it (used to split oversized batches). */
export function flightDataSize(parts: FlightDataParts): number {
  const descriptor = parts.descriptor ? toBinary(FlightDescriptorSchema, parts.descriptor).byteLength : 0;
  const header = parts.header?.byteLength ?? 0;
  const metadata = parts.appMetadata?.byteLength ?? 0;
  const body = bodyLength(parts.body);
  let size = 0;
  if (parts.descriptor) size += 1 + varintLength(descriptor) + descriptor;
  if (header > 0) size += 1 + varintLength(header) + header;
  if (metadata > 0) size += 1 + varintLength(metadata) + metadata;
  if (body > 0) size += 2 + varintLength(body) + body;
  return size;
}

/** Encodes one FlightData message into a single Buffer, ready for gRPC framing. */
export function encodeFlightData(parts: FlightDataParts): Buffer {
  const descriptor = parts.descriptor ? toBinary(FlightDescriptorSchema, parts.descriptor) : undefined;
  const header = parts.header;
  const metadata = parts.appMetadata;
  const body = bodyLength(parts.body);
  let size = 0;
  if (descriptor) size += 1 + varintLength(descriptor.byteLength) + descriptor.byteLength;
  if (header && header.byteLength > 0) size += 1 + varintLength(header.byteLength) + header.byteLength;
  if (metadata && metadata.byteLength > 0) size += 1 + varintLength(metadata.byteLength) + metadata.byteLength;
  if (body > 0) size += 2 + varintLength(body) + body;
  const output = Buffer.allocUnsafe(size);
  let offset = 0;
  const field = (tag: number, bytes: Uint8Array) => {
    output[offset++] = tag;
    offset = writeVarint(output, offset, bytes.byteLength);
    output.set(bytes, offset);
    offset += bytes.byteLength;
  };
  if (descriptor) field(TAG_DESCRIPTOR, descriptor);
  if (header && header.byteLength > 0) field(TAG_HEADER, header);
  if (metadata && metadata.byteLength > 0) field(TAG_APP_METADATA, metadata);
  if (body > 0) {
    output[offset++] = TAG_BODY[0];
    output[offset++] = TAG_BODY[1];
    offset = writeVarint(output, offset, body);
    for (const chunk of parts.body ?? []) {
      output.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  return output;
}

export interface DecodedFlightData {
  readonly descriptor: FlightDescriptor | undefined;
  readonly header: Uint8Array;
  readonly body: Uint8Array;
  readonly appMetadata: Uint8Array;
}

/** Decodes one FlightData message; byte fields are views into `bytes` (no copy). */
export function decodeFlightData(bytes: Uint8Array): DecodedFlightData {
  const message = fromBinary(FlightDataSchema, bytes);
  return {
    descriptor: message.flightDescriptor,
    header: message.dataHeader,
    body: message.dataBody,
    appMetadata: message.appMetadata,
  };
}

/** A FlightData carrying only a descriptor (the first DoPut message of a stream with no schema yet). */
export function descriptorOnly(descriptor: FlightDescriptor): Buffer {
  return encodeFlightData({ descriptor: create(FlightDescriptorSchema, descriptor) });
}
