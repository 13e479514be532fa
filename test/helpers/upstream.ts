import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the upstream saw. */
export interface Arrival {
  /** performance.timeOrigin-based wall time in ms (comparable across processes on this host). */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export type UpstreamHandler = (request: IncomingMessage & { body: string }, response: ServerResponse, arrival: Arrival) => void | Promise<void>;

export interface Upstream {
  readonly origin: string;
  readonly arrivals: Arrival[];
  /** Requests currently being answered (for concurrency checks) and the most seen at once. */
  readonly inFlight: () => number;
  readonly maxInFlight: () => number;
  close(): Promise<void>;
}

/** A real HTTP server on loopback that records the arrival time of every request it answers. */
export async function startUpstream(handler: UpstreamHandler): Promise<Upstream> {
  const arrivals: Arrival[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const arrival: Arrival = { at: performance.timeOrigin + performance.now(), method: request.method ?? 'GET', path: request.url ?? '/', headers: request.headers, body };
      arrivals.push(arrival);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      response.once('close', () => inFlight--);
      Promise.resolve(handler(Object.assign(request, { body }), response, arrival)).catch((error: Error) => {
        if (!response.headersSent) response.writeHead(500);
        response.end(`test upstream handler failed: ${error.message}`);
      });
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    arrivals,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends `body` as JSON. */
export function sendJson(response: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
