import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { QuarryError, isQuarryError, toQuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { TlsService } from '../listeners/tls-service.js';
import type { PhaseMachine } from '../lifecycle/phase.js';
import type { Logger } from '../log.js';
import { admitThen } from '../pipeline/admission.js';
import { formatAddress, parseListenAddress } from '../listeners/address.js';
import { openAcceptLanes } from '../listeners/accept-lanes.js';
import { formatSize } from '../units.js';
import { buildInbound } from './inbound.js';
import { bodyStream, handoverOf, HitLane } from './hit-lane.js';

/**
 * Largest request body accepted on any route (413 above it). SQL text and JSON parameters
 * fit comfortably; bulk data belongs in Flight DoPut, not in an HTTP body.
 */
export const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

/** Routes still answered while the runtime drains. */
const ANSWERED_WHILE_DRAINING = new Set(['/health']);

export interface HttpServerOptions {
  hooks: Hooks;
  phase: PhaseMachine;
  log: Logger;
  bodyLimit?: number;
  /** HTTPS from the runtime's TLS service: reloads reach new connections; open ones keep their context. */
  tls?: TlsService | undefined;
}

/**
 * Node https options for the service. With client auth on, certificates are requested but
 * never required at the handshake (`rejectUnauthorized: false`): `/health` and `/v1/ready`
 * must stay reachable for probes, so the client-cert plugin decides per route.
 */
function httpsOptions(tls: TlsService) {
  const { cert, key, ca } = tls.material;
  return {
    cert,
    key,
    ...(tls.requestsClientCertificate ? { ca, requestCert: true, rejectUnauthorized: false } : {}),
  };
}

/** Node's keep-alive timeout as fastify sets it (72 s: above common load balancers' 60 s idle timeouts). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * The HTTP listener: bodies arrive as raw buffers (routes decide how to read them),
 * every request passes the core admission (request and auth hooks), and every error is
 * answered as `{"error": {"code", "message"}}` with the code's status. The server's requests
 * reach the hit lane first (cache hits of `/v1/sql`), fastify for everything else.
 */
export function createHttpServer(options: HttpServerOptions): { app: FastifyInstance; lane: HitLane } {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const lane = new HitLane({ hooks: options.hooks, phase: options.phase, bodyLimit });
  const app = Fastify({
    logger: false,
    bodyLimit,
    // The server fastify would make, with the lane in front of fastify's handler.
    serverFactory: (handler) => {
      lane.setFallback(handler);
      const server = options.tls ? https.createServer(httpsOptions(options.tls), lane.handle) : http.createServer(lane.handle);
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      // Queries may legitimately take minutes; the engine, not the socket, bounds them.
      server.requestTimeout = 0;
      server.setTimeout(0);
      return server;
    },
    return503OnClosing: false,
    // Requests fastify refuses before routing (a URL that is not valid percent-encoding) and
    // those the HTTP parser refuses (headers over 16 KiB, a malformed request line) get the
    // runtime's error shape, like every other answer.
    frameworkErrors: (error, _request, reply) => {
      const failure = new QuarryError('REQUEST_INVALID', `${error.message}: the request URL must be valid percent-encoding`);
      void (reply as FastifyReply).status(failure.httpStatus).type('application/json; charset=utf-8').send(JSON.stringify(failure.toJSON()));
    },
    clientErrorHandler: answerClientError,
  }) as unknown as FastifyInstance;

  if (options.tls) {
    const server = app.server as unknown as { setSecureContext(options: object): void };
    const unsubscribe = options.tls.subscribe(({ cert, key, ca }) => server.setSecureContext({ cert, key, ...(ca !== undefined ? { ca } : {}) }));
    app.addHook('onClose', async () => {
      unsubscribe();
    });
  }

  app.decorateRequest('inbound', null as never);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  // Callback style: no promise per request when every request and auth tap is synchronous.
  app.addHook('onRequest', (request, reply, done) => {
    const handover = handoverOf(request.raw);
    if (handover?.inbound !== undefined) {
      // The hit lane admitted it already (or met a refusal fastify now answers).
      request.inbound = handover.inbound;
      done(handover.error as Error | undefined);
      return;
    }
    request.inbound = buildInbound(request);
    if (!options.phase.acceptsWork && !ANSWERED_WHILE_DRAINING.has(request.inbound.route)) {
      reply.header('connection', 'close');
      done(new QuarryError('RUNTIME_SHUTTING_DOWN', 'the runtime is shutting down; retry against another replica'));
      return;
    }
    admitThen(options.hooks, request.inbound, (error) => done(error as Error | undefined));
  });

  // A body the hit lane read from the socket is parsed from what it kept.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const handover = handoverOf(request.raw);
    done(null, handover === undefined ? payload : bodyStream(handover));
  });

  app.setNotFoundHandler((request) => {
    throw new QuarryError('ROUTE_NOT_FOUND', `no endpoint ${request.method} ${request.url.split('?')[0]}`);
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const failure = fromFastifyError(error, bodyLimit);
    if (failure.code === 'INTERNAL' || failure.code === 'PLUGIN_FAILED') {
      options.log.error('request failed', { route: request.url, error: failure.message });
    } else {
      options.log.debug('request refused', { route: request.url, code: failure.code, error: failure.message });
    }
    for (const [name, value] of Object.entries(request.inbound?.responseHeaders ?? {})) reply.header(name, value);
    return reply.status(failure.httpStatus).type('application/json; charset=utf-8').send(JSON.stringify(failure.toJSON()));
  });

  return { app, lane };
}

/** Binds the HTTP listener (`--http`); `close()` stops it without waiting for idle keep-alive sockets to time out. */
export async function listenHttp(app: FastifyInstance, address: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const { host, port } = parseListenAddress(address, '--http');
  try {
    await app.listen({ host, port });
  } catch (error) {
    throw new QuarryError('LISTENER_FAILED', `cannot listen on ${formatAddress(host, port)} (--http): ${(error as Error).message}`, { cause: error });
  }
  const bound = app.server.address();
  const endpoint = formatAddress(host, typeof bound === 'object' && bound ? bound.port : port);
  const closeLanes = openAcceptLanes(app.server, ACCEPT_LANES);
  const close = async () => {
    const closing = Promise.all([app.close(), closeLanes()]);
    // Keep-alive sockets would hold close() open until they time out: close each one as
    // soon as its last response is done (in-flight responses finish first).
    app.server.closeIdleConnections();
    const sweep = setInterval(() => app.server.closeIdleConnections(), 25);
    // The listeners stop after the drain, when what still runs has been interrupted; a request
    // whose statement ignores that (one still being planned) would hold the close for as long
    // as it runs: its connection is closed after a grace, as Flight's calls are.
    const force = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
    force.unref();
    try {
      await closing;
    } finally {
      clearInterval(sweep);
      clearTimeout(force);
    }
  };
  return { endpoint, close };
}

/** An answer the HTTP parser's refusal gets (the socket is then closed): Node's status, the runtime's error body. */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const failure = error.code === 'HPE_HEADER_OVERFLOW'
    ? new QuarryError('HEADERS_TOO_LARGE', 'the request headers are over the 16 KiB limit (Node\'s --max-http-header-size)')
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new QuarryError('REQUEST_INVALID', 'the request was not received in time')
      : new QuarryError('REQUEST_INVALID', `the request could not be parsed as HTTP/1.1 (${error.code ?? error.message})`);
  const body = JSON.stringify(failure.toJSON());
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${failure.httpStatus} ${http.STATUS_CODES[failure.httpStatus] ?? 'Error'}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}

/** Extra listening handles on the HTTP socket: 1 + this many connections accepted per turn of the loop (accept-lanes.ts). */
const ACCEPT_LANES = 7;

/** How long closing waits for responses still being sent after the drain before closing their connections. */
const CLOSE_GRACE_MS = 1_000;

function fromFastifyError(error: FastifyError, bodyLimit: number): QuarryError {
  if (isQuarryError(error)) return toQuarryError(error);
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new QuarryError('BODY_TOO_LARGE', `the request body is over the ${formatSize(bodyLimit)} limit`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new QuarryError('UNSUPPORTED_MEDIA_TYPE', error.message);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new QuarryError('BODY_INVALID_JSON', error.message);
  }
  if (error.statusCode === 413) return new QuarryError('BODY_TOO_LARGE', `the request body is over the ${formatSize(bodyLimit)} limit`);
  if (error.statusCode === 405) return new QuarryError('METHOD_NOT_ALLOWED', error.message);
  return toQuarryError(error);
}
