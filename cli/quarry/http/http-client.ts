import { Agent as HttpAgent, request as sendHttp, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as sendHttps } from 'node:https';
import { QUARRY_VERSION } from '../../version.js';
import { apiUrl, type Endpoint } from '../endpoint.js';
import { CancelledError, RuntimeUnavailableError, ServerError, TransportError, UnauthorizedError } from '../errors.js';
import { parseErrorBody } from './error-body.js';

/**
 * The HTTP side of the client, on node:http rather than fetch: fetch refuses some ports
 * outright ("bad port"), hides socket error codes behind `fetch failed`, and cannot take a
 * private CA per request.
 */
export interface HttpClientOptions {
  endpoint: Endpoint;
  apiKey: string | undefined;
  /** Sent with every request (`--header`): credentials of another auth scheme, tracing ids. */
  headers?: Readonly<Record<string, string>>;
  /** PEM text of the CA that signed the runtime's certificate (https only). */
  caCertificate: string | undefined;
}

export interface RequestOptions {
  method: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

/** Socket errors meaning nothing listens there (as opposed to a listener that misbehaves). */
const unreachableCodes = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
const tlsCodes = /^(ERR_SSL_|ERR_TLS_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|CERT_)/;

/** Largest error body read; error messages are short, a misbehaving proxy may not be. */
const ERROR_BODY_LIMIT = 64 * 1024;

export class HttpClient {
  private readonly agent: HttpAgent;

  constructor(private readonly options: HttpClientOptions) {
    const agentOptions = { keepAlive: true, maxSockets: 4 };
    this.agent = options.endpoint.tls
      ? new HttpsAgent({ ...agentOptions, ...(options.caCertificate ? { ca: options.caCertificate } : {}) })
      : new HttpAgent(agentOptions);
  }

  get endpoint(): Endpoint {
    return this.options.endpoint;
  }

  /**
   * Sends one request. Resolves with the response when the status is 2xx; any other status
   * becomes a thrown error carrying the runtime's message (401 always reads as an auth
   * problem, whatever the body says).
   */
  async send(path: string, request: RequestOptions): Promise<HttpResponse> {
    const response = await this.exchange(path, request);
    if (response.status >= 200 && response.status < 300) return response;
    const text = await readText(response.body, ERROR_BODY_LIMIT, request.signal).catch(() => '');
    const { code, message } = parseErrorBody(response.status, text);
    if (response.status === 401) throw new UnauthorizedError({ code, message });
    throw new ServerError(response.status, code, message);
  }

  /** Sends a request and reads the whole (small) answer as text. */
  async sendForText(path: string, request: RequestOptions): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
    const response = await this.send(path, request);
    try {
      const text = await readText(response.body, Number.POSITIVE_INFINITY, request.signal);
      return { status: response.status, headers: response.headers, text };
    } catch (error) {
      throw this.translateError(error, request.signal);
    }
  }

  /** Frees pooled sockets so the process can exit. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * A pooled keep-alive socket may be closed by the runtime just as a request goes out on
   * it (idle timeout). The request never reached the runtime then, so it is sent once more
   * on a fresh socket, as the Node documentation advises for `reusedSocket`.
   */
  private async exchange(path: string, request: RequestOptions): Promise<HttpResponse> {
    try {
      return await this.exchangeOnce(path, request);
    } catch (error) {
      if (!(error instanceof StaleSocketError)) throw error;
      return this.exchangeOnce(path, request);
    }
  }

  private exchangeOnce(path: string, request: RequestOptions): Promise<HttpResponse> {
    const url = apiUrl(this.options.endpoint, path);
    const headers: Record<string, string> = { 'user-agent': `quarry/${QUARRY_VERSION}`, ...this.options.headers, ...request.headers };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const send = this.options.endpoint.tls ? sendHttps : sendHttp;
    return new Promise<HttpResponse>((resolve, reject) => {
      if (request.signal?.aborted) {
        reject(new CancelledError());
        return;
      }
      const outgoing = send(url, { method: request.method, headers, agent: this.agent, signal: request.signal }, (incoming) => {
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: incoming });
      });
      outgoing.on('error', (error) => {
        const stale = outgoing.reusedSocket && errorCode(error) === 'ECONNRESET' && !request.signal?.aborted;
        reject(stale ? new StaleSocketError() : this.translateError(error, request.signal));
      });
      outgoing.end(request.body);
    });
  }

  /** A socket or abort error as the message users should see. */
  translateError(error: unknown, signal?: AbortSignal): Error {
    if (error instanceof CancelledError || signal?.aborted) return new CancelledError();
    const endpoint = this.options.endpoint.display;
    const code = errorCode(error);
    const detail = error instanceof Error ? error.message : String(error);
    if (code && unreachableCodes.has(code)) return new RuntimeUnavailableError(endpoint, { cause: error });
    if (code && tlsCodes.test(code)) {
      return new TransportError(`TLS connection to ${endpoint} failed: ${detail} (for a private CA pass --tls-root-certificate-file)`, { cause: error });
    }
    // A TLS listener hangs up on plain HTTP: the likeliest cause of a reset on http://.
    let hint = code === 'ECONNRESET' && !this.options.endpoint.tls ? '; is it an https:// endpoint?' : '';
    // Something answered, but not in HTTP/1.1: most often quarryd's Flight (gRPC, HTTP/2) port.
    if (code?.startsWith('HPE_')) hint = `; the server there does not speak HTTP/1.1: if it is quarryd's Flight SQL port, use grpc://${this.options.endpoint.url.host}`;
    return new TransportError(`request to ${endpoint} (HTTP API) failed: ${detail}${code ? ` (${code})` : ''}${hint}`, { cause: error });
  }
}

/** Internal signal for exchange(): the request went out on a socket the runtime had closed. */
class StaleSocketError extends Error {}

/** The socket error code, also when Node reports every address it tried in an AggregateError. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const own = (error as { code?: unknown }).code;
  if (typeof own === 'string') return own;
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested)) {
    for (const inner of nested) {
      const code = errorCode(inner);
      if (code) return code;
    }
  }
  return undefined;
}

/** Reads a response body as UTF-8, up to `limit` bytes (the rest is dropped). */
export async function readText(body: IncomingMessage, limit: number, signal?: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (size < limit) chunks.push(chunk);
      size += chunk.length;
    }
  } catch (error) {
    if (signal?.aborted) throw new CancelledError();
    throw error;
  }
  return Buffer.concat(chunks).subarray(0, Number.isFinite(limit) ? limit : undefined).toString('utf8');
}
