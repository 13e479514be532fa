/**
 * A hand-written decoder for the OTLP metrics subset in otlp-metrics-subset.proto, and a
 * reader for the OTLP/JSON form of the same messages. Both produce ReceivedExport, which the
 * tests assert on. Enough for test receivers; not a general protobuf library.
 */

export type AttributeValue = string | number | boolean;

export interface ReceivedPoint {
  attributes: Record<string, AttributeValue>;
  /** Gauges and sums. */
  value?: number;
  /** Histograms. */
  count?: number;
  sum?: number;
}

export interface ReceivedMetric {
  name: string;
  kind: 'gauge' | 'sum' | 'histogram' | 'other';
  points: ReceivedPoint[];
}

export interface ReceivedExport {
  resourceAttributes: Record<string, AttributeValue>;
  metrics: ReceivedMetric[];
}

interface WireField {
  number: number;
  varint?: bigint;
  bytes?: Buffer;
}

/** Splits a message into its fields (wire types 0, 1, 2 and 5). */
function fields(buffer: Buffer): WireField[] {
  const out: WireField[] = [];
  let offset = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[offset++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (offset < buffer.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wireType = key & 7;
    if (wireType === 0) out.push({ number, varint: varint() });
    else if (wireType === 1) out.push({ number, bytes: buffer.subarray(offset, (offset += 8)) });
    else if (wireType === 5) out.push({ number, bytes: buffer.subarray(offset, (offset += 4)) });
    else if (wireType === 2) {
      const length = Number(varint());
      out.push({ number, bytes: buffer.subarray(offset, (offset += length)) });
    } else throw new Error(`unsupported wire type ${wireType}`);
  }
  return out;
}

const all = (message: Buffer, number: number) => fields(message).filter((field) => field.number === number);
const one = (message: Buffer, number: number) => fields(message).find((field) => field.number === number);
const text = (field: WireField | undefined) => field?.bytes?.toString('utf8') ?? '';
const double = (field: WireField | undefined) => field?.bytes?.readDoubleLE(0);

function anyValue(message: Buffer): AttributeValue {
  const field = fields(message)[0];
  if (!field) return '';
  if (field.number === 1) return text(field);
  if (field.number === 2) return field.varint === 1n;
  if (field.number === 3) return Number(BigInt.asIntN(64, field.varint ?? 0n));
  if (field.number === 4) return double(field) ?? 0;
  return '';
}

function attributes(message: Buffer, number: number): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const field of all(message, number)) out[text(one(field.bytes!, 1))] = anyValue(one(field.bytes!, 2)?.bytes ?? Buffer.alloc(0));
  return out;
}

function numberPoint(message: Buffer): ReceivedPoint {
  const asInt = one(message, 6)?.bytes;
  return { attributes: attributes(message, 7), value: asInt ? Number(asInt.readBigInt64LE(0)) : double(one(message, 4)) };
}

function histogramPoint(message: Buffer): ReceivedPoint {
  return { attributes: attributes(message, 9), count: Number(one(message, 4)?.bytes?.readBigUInt64LE(0) ?? 0n), sum: double(one(message, 5)) };
}

function metric(message: Buffer): ReceivedMetric {
  const name = text(one(message, 1));
  const gauge = one(message, 5)?.bytes;
  const sum = one(message, 7)?.bytes;
  const histogram = one(message, 9)?.bytes;
  if (gauge) return { name, kind: 'gauge', points: all(gauge, 1).map((field) => numberPoint(field.bytes!)) };
  if (sum) return { name, kind: 'sum', points: all(sum, 1).map((field) => numberPoint(field.bytes!)) };
  if (histogram) return { name, kind: 'histogram', points: all(histogram, 1).map((field) => histogramPoint(field.bytes!)) };
  return { name, kind: 'other', points: [] };
}

/** Decodes an ExportMetricsServiceRequest (protobuf). */
export function decodeExportRequest(body: Buffer): ReceivedExport {
  const received: ReceivedExport = { resourceAttributes: {}, metrics: [] };
  for (const resourceMetrics of all(body, 1)) {
    const resource = one(resourceMetrics.bytes!, 1)?.bytes;
    if (resource) Object.assign(received.resourceAttributes, attributes(resource, 1));
    for (const scope of all(resourceMetrics.bytes!, 2)) received.metrics.push(...all(scope.bytes!, 2).map((field) => metric(field.bytes!)));
  }
  return received;
}

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string; boolValue?: boolean; intValue?: number | string; doubleValue?: number };
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const { key, value } of list ?? []) out[key] = value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? ''));
  return out;
}

interface JsonPoint {
  attributes?: JsonKeyValue[];
  asInt?: number | string;
  asDouble?: number;
  count?: number | string;
  sum?: number;
}

/** Reads an ExportMetricsServiceRequest in OTLP/JSON. */
export function readJsonExportRequest(body: unknown): ReceivedExport {
  const request = body as { resourceMetrics?: Array<{ resource?: { attributes?: JsonKeyValue[] }; scopeMetrics?: Array<{ metrics?: Array<Record<string, unknown>> }> }> };
  const received: ReceivedExport = { resourceAttributes: {}, metrics: [] };
  for (const resourceMetrics of request.resourceMetrics ?? []) {
    Object.assign(received.resourceAttributes, jsonAttributes(resourceMetrics.resource?.attributes));
    for (const scope of resourceMetrics.scopeMetrics ?? []) {
      for (const entry of scope.metrics ?? []) {
        const kind = (['gauge', 'sum', 'histogram'] as const).find((candidate) => entry[candidate] !== undefined) ?? 'other';
        const points = ((entry[kind] as { dataPoints?: JsonPoint[] } | undefined)?.dataPoints ?? []).map((point) => ({
          attributes: jsonAttributes(point.attributes),
          ...(kind === 'histogram' ? { count: Number(point.count), sum: point.sum } : { value: point.asInt !== undefined ? Number(point.asInt) : point.asDouble }),
        }));
        received.metrics.push({ name: String(entry['name']), kind, points });
      }
    }
  }
  return received;
}
