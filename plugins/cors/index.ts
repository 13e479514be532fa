import type { FastifyReply, FastifyRequest } from 'fastify';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { corsSchema, type CorsConfig } from './schema.js';

export const CORS_PLUGIN_NAME = 'cors';

/** Methods the HTTP API serves. */
const ALLOWED_METHODS = 'GET, HEAD, POST, PATCH, OPTIONS';
/** Request headers browsers may send cross-origin: credentials, bodies and cache control. */
const ALLOWED_HEADERS = 'Accept, Authorization, Cache-Control, Content-Type, X-API-Key';
/** Response headers a browser script may read besides the safelisted ones. */
const EXPOSED_HEADERS = 'X-Cache, Results-Cache-Scope, WWW-Authenticate';
/** Browsers cache a preflight answer this long (seconds). */
const PREFLIGHT_MAX_AGE = '600';

/** Origins compare as the browser sends them: scheme://host[:port], case-insensitive, no trailing slash. */
const normalise = (origin: string) => origin.trim().replace(/\/+$/, '').toLowerCase();

/** The Access-Control-Allow-Origin value for a request's Origin, or undefined when not allowed. */
export function allowedOrigin(config: CorsConfig, origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined;
  if (config.allowed_origins.includes('*')) return '*';
  const wanted = normalise(origin);
  return config.allowed_origins.some((allowed) => normalise(allowed) === wanted) ? origin : undefined;
}

/** `Vary` with `values` added to what the response already varies on. */
function withVary(existing: unknown, values: string): string {
  return existing ? `${String(existing)}, ${values}` : values;
}

function appendVary(reply: FastifyReply, values: string): void {
  reply.header('vary', withVary(reply.getHeader('vary'), values));
}

/**
 * CORS for the HTTP listener, with fastify hooks on `runtime.http`: every response says
 * which origin may read it (`Vary: Origin`, no header for origins not allowed), and
 * preflights are answered 204 by a public OPTIONS route, so they never need credentials
 * (browsers send none on a preflight).
 */
export function createCorsPlugin(): QuarryPlugin {
  return {
    name: CORS_PLUGIN_NAME,
    manifest: [{ path: 'runtime.cors', schema: corsSchema }],
    apply(runtime) {
      const config = (runtime.manifest.runtime['cors'] as CorsConfig | undefined) ?? corsSchema.parse(undefined);
      if (!config.enabled) return;
      const app = runtime.http;

      // Error answers too (a 401 the page cannot read is useless), so onSend, not a route handler.
      app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
        const origin = allowedOrigin(config, request.headers.origin);
        appendVary(reply, 'Origin');
        if (origin !== undefined) {
          reply.header('access-control-allow-origin', origin);
          reply.header('access-control-expose-headers', EXPOSED_HEADERS);
        }
        return payload;
      });
      // Cache hits answered in front of fastify get the same headers.
      runtime.httpHitLane.observe({
        headers: (request, headers) => {
          const origin = allowedOrigin(config, request.headers.origin);
          headers['vary'] = withVary(headers['vary'], 'Origin');
          if (origin !== undefined) {
            headers['access-control-allow-origin'] = origin;
            headers['access-control-expose-headers'] = EXPOSED_HEADERS;
          }
        },
      });

      app.options('/*', { config: { public: true } }, async (request, reply) => {
        if (request.headers['access-control-request-method'] === undefined) {
          throw new QuarryError('METHOD_NOT_ALLOWED', `OPTIONS ${request.url.split('?')[0]} is answered only as a CORS preflight (with Access-Control-Request-Method)`);
        }
        appendVary(reply, 'Access-Control-Request-Method, Access-Control-Request-Headers');
        if (allowedOrigin(config, request.headers.origin) !== undefined) {
          reply.header('access-control-allow-methods', ALLOWED_METHODS);
          reply.header('access-control-allow-headers', ALLOWED_HEADERS);
          reply.header('access-control-max-age', PREFLIGHT_MAX_AGE);
        }
        return reply.status(204).send();
      });

      runtime.log.info('CORS enabled', { allowed_origins: config.allowed_origins.join(',') });
    },
  };
}
