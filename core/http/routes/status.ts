import type { FastifyInstance } from 'fastify';
import { toCsv } from '../small-csv.js';
import type { RouteContext } from './context.js';

/** `GET /v1/status`: each listener with its endpoint and state; `?format=csv` for scripts. */
export function registerStatusRoute(app: FastifyInstance, context: RouteContext): void {
  app.get<{ Querystring: { format?: string } }>('/v1/status', async (request, reply) => {
    const listeners = context.listeners();
    if (request.query.format === 'csv') {
      return reply.type('text/csv; charset=utf-8').send(toCsv(['name', 'endpoint', 'status'], listeners.map((l) => [l.name, l.endpoint, l.status])));
    }
    return reply.type('application/json; charset=utf-8').send(listeners);
  });
}
