/**
 * A stand-in for quarryd, speaking its HTTP contract (POST /v1/sql with Arrow IPC / JSON /
 * CSV answers and JSON errors, GET /v1/status, POST /v1/datasets/{name}/acceleration/refresh,
 * X-API-Key auth). It exists only until the end-to-end tests run the CLI against the real
 * runtime; keep it to the documented contract, never to quirks of the client.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tableToIPC, type Table } from 'apache-arrow';
import { cannedResults, type CannedResult } from './canned-results.js';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeRuntimeOptions {
  /** When set, every /v1 route answers 401 unless X-API-Key carries it. */
  apiKey?: string;
}

const DATASETS_BODY = [
  { name: 'people', status: 'Ready', error: null, acceleration_enabled: false, served_from: 'source', progress: null, last_load: null },
  {
    name: 'orders', status: 'Ready', error: null, acceleration_enabled: true, served_from: 'acceleration', progress: null,
    last_load: { kind: 'load', rows: 1234567, bytes: 52428800, duration_ms: 4200, finished_at: '2026-11-27T10:00:04.000Z' },
  },
  {
    name: 'trips', status: 'Initializing', error: null, acceleration_enabled: true, served_from: 'source', last_load: null,
    progress: { kind: 'load', phase: 'reading', rows_read: 5000000, rows_total: 20000000, bytes_read: 262144000, bytes_total: 1048576000, percent: 25, rows_per_second: 1000000, bytes_per_second: 52428800, eta_seconds: 15, elapsed_ms: 5000, started_at: '2026-11-27T10:00:00.000Z' },
  },
];

export const STATUS_BODY = [
  { name: 'http', endpoint: '127.0.0.1:8090', status: 'Ready' },
  { name: 'flight', endpoint: '127.0.0.1:50051', status: 'Disabled' },
  { name: 'metrics', endpoint: null, status: 'Disabled' },
  { name: 'opentelemetry', endpoint: '127.0.0.1:50052', status: { Error: 'exporter unreachable' } },
];

export class FakeRuntime {
  readonly requests: RecordedRequest[] = [];
  private readonly waiters: Array<{ predicate: (request: RecordedRequest) => boolean; resolve: () => void }> = [];

  private constructor(
    private readonly server: Server,
    private readonly options: FakeRuntimeOptions,
  ) {}

  static async start(options: FakeRuntimeOptions = {}): Promise<FakeRuntime> {
    const server = createServer();
    const runtime = new FakeRuntime(server, options);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      void runtime.handle(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return runtime;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The SQL texts received, in order. */
  get sqlReceived(): string[] {
    return this.requests.filter((request) => request.path === '/v1/sql').map((request) => request.body);
  }

  /** Answers the `select * from held` queries waiting so far. */
  releaseHeld(): void {
    for (const answer of this.held.splice(0)) answer();
  }

  private readonly held: Array<() => void> = [];

  /** Resolves once a request matching the predicate arrived (e.g. a slow query, before cancelling it). */
  waitForRequest(predicate: (request: RecordedRequest) => boolean): Promise<void> {
    if (this.requests.some(predicate)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ predicate, resolve }));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = (request.url ?? '/').split('?')[0]!;
    const recorded = { method: request.method ?? 'GET', path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
    this.requests.push(recorded);
    for (const waiter of this.waiters.filter((candidate) => candidate.predicate(recorded))) waiter.resolve();

    if (this.options.apiKey !== undefined && request.headers['x-api-key'] !== this.options.apiKey) {
      return sendError(response, 401, 'API_KEY_INVALID', 'missing or invalid API key');
    }
    if (recorded.method === 'POST' && path === '/v1/sql') return this.answerSql(recorded, response);
    if (recorded.method === 'GET' && path === '/v1/status') return sendJson(response, 200, STATUS_BODY);
    // quarryd's /v1/datasets (status shows it): a live dataset, one loaded, one loading.
    if (recorded.method === 'GET' && path === '/v1/datasets') return sendJson(response, 200, DATASETS_BODY);
    const refresh = /^\/v1\/datasets\/([^/]+)\/acceleration\/refresh$/.exec(path);
    if (recorded.method === 'POST' && refresh) return answerRefresh(decodeURIComponent(refresh[1]!), response);
    return sendError(response, 404, 'NOT_FOUND', `no route ${recorded.method} ${path}`);
  }

  private answerSql(request: RecordedRequest, response: ServerResponse): void {
    const key = request.body.trim().replace(/\s+/g, ' ').toLowerCase();
    const canned: CannedResult | undefined = cannedResults[key];
    if (!canned) return sendError(response, 400, 'SQL_INVALID', `Parser Error: syntax error at or near "${request.body.trim().split(/\s+/)[0] ?? ''}"`);
    if (canned.kind === 'error') return sendError(response, canned.status, canned.code, canned.message);
    // A query that never finishes: only the client going away ends it.
    if (canned.kind === 'hang') return;
    if (canned.kind === 'held') {
      this.held.push(() => {
        response.writeHead(200, { 'content-type': 'application/vnd.apache.arrow.stream' });
        response.end(tableToIPC(canned.table, 'stream'));
      });
      return;
    }
    if (canned.kind === 'cut-off') {
      const bytes = tableToIPC(canned.table, 'stream');
      response.writeHead(200, { 'content-type': 'application/vnd.apache.arrow.stream' });
      response.write(bytes.subarray(0, bytes.length >> 1), () => response.destroy());
      return;
    }
    const accept = String(request.headers['accept'] ?? '');
    response.setHeader('x-cache', canned.cacheStatus ?? 'MISS');
    if (accept.includes('application/vnd.apache.arrow.stream')) {
      response.writeHead(200, { 'content-type': 'application/vnd.apache.arrow.stream' });
      response.end(tableToIPC(canned.table, 'stream'));
    } else if (accept.includes('text/csv')) {
      response.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
      response.end(toCsv(canned.table));
    } else {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(toJson(canned.table));
    }
  }
}

function answerRefresh(dataset: string, response: ServerResponse): void {
  if (dataset === 'taxi_trips') {
    return sendJson(response, 201, { message: `Dataset ${dataset} refreshed.`, dataset: { name: dataset, status: 'Ready' } });
  }
  if (dataset === 'plain_files') return sendError(response, 400, 'DATASET_NOT_ACCELERATED', `Dataset ${dataset} does not have acceleration enabled`);
  return sendError(response, 404, 'DATASET_NOT_FOUND', `Dataset ${dataset} not found`);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  sendJson(response, status, { error: { code, message } });
}

function plainRows(table: Table): Array<Record<string, unknown>> {
  return table.toArray().map((row: { toJSON(): Record<string, unknown> }) => row.toJSON());
}

function toJson(table: Table): string {
  return JSON.stringify(plainRows(table), (_key, value: unknown) => (typeof value === 'bigint' ? Number(value) : value));
}

function toCsv(table: Table): string {
  const names = table.schema.fields.map((field) => field.name);
  const lines = plainRows(table).map((row) => names.map((name) => (row[name] === null ? '' : String(row[name]))).join(','));
  return [names.join(','), ...lines].join('\n') + '\n';
}
