import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, ServerCredentials, type Metadata, type sendUnaryData, type ServerUnaryCall } from '@grpc/grpc-js';
import { decodeExportRequest, readJsonExportRequest, type ReceivedExport } from './otlp-protobuf.js';

/** One push as a receiver saw it. */
export interface ReceivedPush {
  /** HTTP headers or gRPC metadata, lower-case names, first value. */
  headers: Record<string, string>;
  contentType: string;
  export: ReceivedExport;
}

export interface Receiver {
  /** `host:port` (gRPC) or the full `http://…/v1/metrics` URL (HTTP). */
  endpoint: string;
  pushes: ReceivedPush[];
  close(): Promise<void>;
}

/** An OTLP/HTTP collector stand-in: POST /v1/metrics, JSON or protobuf bodies. */
export async function startHttpReceiver(): Promise<Receiver> {
  const pushes: ReceivedPush[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/metrics') {
        response.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      const json = contentType.includes('json');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value[0]! : (value ?? '');
      pushes.push({ headers, contentType, export: json ? readJsonExportRequest(JSON.parse(body.toString('utf8'))) : decodeExportRequest(body) });
      response.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' }).end(json ? '{}' : Buffer.alloc(0));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}/v1/metrics`,
    pushes,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const EXPORT_PATH = '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export';
const passThrough = (buffer: Buffer) => buffer;

/** An OTLP/gRPC collector stand-in: MetricsService/Export, protobuf decoded by hand. */
export async function startGrpcReceiver(): Promise<Receiver> {
  const pushes: ReceivedPush[] = [];
  const server = new Server();
  server.addService(
    { Export: { path: EXPORT_PATH, requestStream: false, responseStream: false, requestSerialize: passThrough, requestDeserialize: passThrough, responseSerialize: passThrough, responseDeserialize: passThrough } },
    {
      Export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        pushes.push({ headers: metadataRecord(call.metadata), contentType: 'application/grpc', export: decodeExportRequest(call.request) });
        // An empty ExportMetricsServiceResponse: full success.
        callback(null, Buffer.alloc(0));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    endpoint: `127.0.0.1:${port}`,
    pushes,
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}

function metadataRecord(metadata: Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(metadata.getMap())) out[name] = Buffer.isBuffer(value) ? value.toString('utf8') : value;
  return out;
}

/** The last value a receiver got for a metric's series with exactly these attributes. */
export function lastValue(pushes: readonly ReceivedPush[], name: string, attributes: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(attributes).sort());
  for (const push of [...pushes].reverse()) {
    const point = push.export.metrics
      .filter((metric) => metric.name === name)
      .flatMap((metric) => metric.points)
      .find((candidate) => JSON.stringify(Object.entries(candidate.attributes).sort()) === wanted);
    if (point) return point.value ?? point.count;
  }
  return undefined;
}

/** Every metric name any push carried. */
export function pushedNames(pushes: readonly ReceivedPush[]): Set<string> {
  return new Set(pushes.flatMap((push) => push.export.metrics.map((metric) => metric.name)));
}
