import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { FlightDataSchema, type FlightDescriptor, FlightDescriptorSchema } from './generated/arrow/flight/protocol/flight_pb.js';

/**
 * FlightData on the wire. DoGet sends hundreds of megabytes of these, so instead of building
 * protobuf objects (which copies every body) we write the four fields by hand around the
 * IPC message bytes: one copy per message, into a buffer the caller may reuse.
 *
 *   field 1 flight_descriptor (tag 0x0a), field 2 data_header (tag 0x12),
 *   field 3 app_metadata (tag 0x1a), field 1000 data_body (tag bytes 0xc2 0x3e)
 *
 * The body is placed 8-byte aligned as seen by a receiver that keeps the gRPC message with
 * its 5-byte length prefix in one buffer (grpc-js does): Arrow readers view body buffers
 * in place only when aligned and otherwise copy the whole body. The header carries the
 * zero padding that does it, as Arrow IPC pads metadata flatbuffers.
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

/** Bytes of the gRPC length prefix in front of every message: compressed flag + uint32 length. */
const GRPC_PREFIX_BYTES = 5;

/** The encoded size of each field and the data_header padding that aligns the body. */
interface Layout {
  readonly descriptor: Uint8Array | undefined;
  readonly headerBytes: number;
  readonly headerPadding: number;
  readonly metadataBytes: number;
  readonly bodyBytes: number;
  readonly size: number;
}

function layout(parts: FlightDataParts): Layout {
  const descriptor = parts.descriptor ? toBinary(FlightDescriptorSchema, parts.descriptor) : undefined;
  const headerBytes = parts.header?.byteLength ?? 0;
  const metadataBytes = parts.appMetadata?.byteLength ?? 0;
  const bodyBytes = bodyLength(parts.body);
  let before = 0;
  if (descriptor) before += 1 + varintLength(descriptor.byteLength) + descriptor.byteLength;
  const fieldBytes = (paddedHeader: number) =>
    (paddedHeader > 0 ? 1 + varintLength(paddedHeader) + paddedHeader : 0) + (metadataBytes > 0 ? 1 + varintLength(metadataBytes) + metadataBytes : 0);
  const bodyPrefix = bodyBytes > 0 ? 2 + varintLength(bodyBytes) : 0;
  let headerPadding = 0;
  if (headerBytes > 0 && bodyBytes > 0) {
    // Padding changes the header's length varint only at 128, 16384, ...: a few tries suffice.
    while ((GRPC_PREFIX_BYTES + before + fieldBytes(headerBytes + headerPadding) + bodyPrefix) % 8 !== 0) headerPadding++;
  }
  const size = before + fieldBytes(headerBytes + headerPadding) + bodyPrefix + bodyBytes;
  return { descriptor, headerBytes, headerPadding, metadataBytes, bodyBytes, size };
}

/** Size of the encoded FlightData, without encoding it (used to split oversized batches). */
export function flightDataSize(parts: FlightDataParts): number {
  return layout(parts).size;
}

/**
 * Encodes one FlightData message, ready for gRPC framing: into a new Buffer, or into the
 * start of `allocate(size)` when given (a pooled buffer; the result is then a view of it).
 */
export function encodeFlightData(parts: FlightDataParts, allocate?: (size: number) => Buffer): Buffer {
  const { descriptor, headerBytes, headerPadding, metadataBytes, bodyBytes, size } = layout(parts);
  const output = allocate ? allocate(size).subarray(0, size) : Buffer.allocUnsafe(size);
  let offset = 0;
  if (descriptor) {
    output[offset++] = TAG_DESCRIPTOR;
    offset = writeVarint(output, offset, descriptor.byteLength);
    output.set(descriptor, offset);
    offset += descriptor.byteLength;
  }
  if (headerBytes > 0) {
    output[offset++] = TAG_HEADER;
    offset = writeVarint(output, offset, headerBytes + headerPadding);
    output.set(parts.header!, offset);
    offset += headerBytes;
    output.fill(0, offset, offset + headerPadding);
    offset += headerPadding;
  }
  if (metadataBytes > 0) {
    output[offset++] = TAG_APP_METADATA;
    offset = writeVarint(output, offset, metadataBytes);
    output.set(parts.appMetadata!, offset);
    offset += metadataBytes;
  }
  if (bodyBytes > 0) {
    output[offset++] = TAG_BODY[0];
    output[offset++] = TAG_BODY[1];
    offset = writeVarint(output, offset, bodyBytes);
    for (const chunk of parts.body!) {
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
