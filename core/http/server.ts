import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { QuarryError, toQuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { PhaseMachine } from '../lifecycle/phase.js';
import type { Logger } from '../log.js';
import { admit } from '../pipeline/admission.js';
import { formatSize } from '../units.js';
import { buildInbound } from './inbound.js';

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
  https?: { key: string | Buffer; cert: string | Buffer } | undefined;
}

/**
 * The HTTP listener: bodies arrive as raw buffers (routes decide how to read them),
 * every request passes the core admission (request and auth hooks), and every error is
 * answered as `{"error": {"code", "message"}}` with the code's status.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const app = Fastify({
    logger: false,
    bodyLimit,
    // Queries may legitimately take minutes; the engine, not the socket, bounds them.
    requestTimeout: 0,
    return503OnClosing: false,
    ...(options.https ? { https: options.https } : {}),
  }) as unknown as FastifyInstance;

  app.decorateRequest('inbound', null as never);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.addHook('onRequest', async (request, reply) => {
    request.inbound = buildInbound(request);
    if (!options.phase.acceptsWork && !ANSWERED_WHILE_DRAINING.has(request.inbound.route)) {
      reply.header('connection', 'close');
      throw new QuarryError('RUNTIME_SHUTTING_DOWN', 'the runtime is shutting down; retry against another replica');
    }
    await admit(options.hooks, request.inbound);
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

  return app;
}

function fromFastifyError(error: FastifyError, bodyLimit: number): QuarryError {
  if (error instanceof QuarryError) return error;
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
