import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import { formatAddress, parseListenAddress } from '../../../core/listeners/address.js';
import type { Logger } from '../../../core/log.js';
import { PROMETHEUS_CONTENT_TYPE } from '../export/content-type.js';
import type { MetricsListenerTls } from './metrics-tls.js';

export interface MetricsListenerOptions {
  /** `--metrics` value, e.g. `127.0.0.1:9090` (port 0 picks a free port). */
  address: string;
  /** The exposition text, collected per scrape. */
  render(): Promise<string>;
  tls: MetricsListenerTls | undefined;
  log: Logger;
}

/**
 * The `--metrics` listener: `GET /metrics` (Prometheus text) and `GET /health` (`OK`). It is
 * a separate server from the HTTP API on purpose: it never runs the request or auth hooks,
 * so API keys and client certificates do not apply (the spec: the metrics listener has no
 * client-auth gate), and a slow scrape never queues behind SQL.
 */
export class MetricsListener {
  readonly #server: http.Server | https.Server;
  readonly #log: Logger;
  #endpoint = '';
  #state: 'Initializing' | 'Ready' | 'ShuttingDown' = 'Initializing';

  private constructor(server: http.Server | https.Server, log: Logger) {
    this.#server = server;
    this.#log = log;
  }

  static async start(options: MetricsListenerOptions): Promise<MetricsListener> {
    const { host, port } = parseListenAddress(options.address, '--metrics');
    const handler = (request: http.IncomingMessage, response: http.ServerResponse) => void answer(request, response, options);
    const server = options.tls ? https.createServer({ cert: options.tls.cert, key: options.tls.key }, handler) : http.createServer(handler);
    // Certificate rotation: new connections get the new pair, open ones keep theirs.
    options.tls?.onChange?.((material) => (server as https.Server).setSecureContext({ cert: material.cert, key: material.key }));
    const listener = new MetricsListener(server, options.log);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port }, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (error) {
      throw new QuarryError('LISTENER_FAILED', `cannot listen on ${formatAddress(host, port)} (--metrics): ${(error as Error).message}`, { cause: error });
    }
    const bound = server.address() as AddressInfo;
    listener.#endpoint = formatAddress(host, bound.port);
    listener.#state = 'Ready';
    return listener;
  }

  /** `host:port` once bound. */
  get endpoint(): string {
    return this.#endpoint;
  }

  get url(): string {
    return `${this.#server instanceof https.Server ? 'https' : 'http'}://${this.#endpoint}`;
  }

  get state(): 'Initializing' | 'Ready' | 'ShuttingDown' {
    return this.#state;
  }

  async close(): Promise<void> {
    this.#state = 'ShuttingDown';
    const closing = new Promise<void>((resolve) => this.#server.close(() => resolve()));
    // Scrapers keep connections alive; idle ones would hold close() open until they time
    // out, so close each as soon as its scrape is answered.
    this.#server.closeIdleConnections();
    const sweep = setInterval(() => this.#server.closeIdleConnections(), 25);
    try {
      await closing;
    } finally {
      clearInterval(sweep);
    }
    this.#log.debug('metrics listener closed', { endpoint: this.#endpoint });
  }
}

async function answer(request: http.IncomingMessage, response: http.ServerResponse, options: MetricsListenerOptions): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  const method = request.method ?? 'GET';
  if (path !== '/metrics' && path !== '/health') return send(response, 404, 'text/plain; charset=utf-8', 'Not Found: the metrics listener serves /metrics and /health\n');
  if (method !== 'GET' && method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    return send(response, 405, 'text/plain; charset=utf-8', 'Method Not Allowed\n');
  }
  if (path === '/health') return send(response, 200, 'text/plain; charset=utf-8', 'OK', method === 'HEAD');
  try {
    send(response, 200, PROMETHEUS_CONTENT_TYPE, await options.render(), method === 'HEAD');
  } catch (error) {
    options.log.error('metrics scrape failed', { error: (error as Error).message });
    send(response, 500, 'text/plain; charset=utf-8', `metrics collection failed: ${(error as Error).message}\n`);
  }
}

function send(response: http.ServerResponse, status: number, contentType: string, body: string, headOnly = false): void {
  response.statusCode = status;
  response.setHeader('content-type', contentType);
  response.setHeader('content-length', Buffer.byteLength(body));
  response.end(headOnly ? undefined : body);
}
