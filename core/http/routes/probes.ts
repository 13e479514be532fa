import type { FastifyInstance } from 'fastify';
import type { RouteContext } from './context.js';

/** `/health` (the process answers) and `/v1/ready` (datasets per runtime.ready_state): never need credentials. */
export function registerProbeRoutes(app: FastifyInstance, context: RouteContext): void {
  app.get('/health', { config: { public: true } }, async (_request, reply) => {
    return reply.type('text/plain; charset=utf-8').send('ok');
  });

  app.get('/v1/ready', { config: { public: true } }, async (_request, reply) => {
    const ready = context.isReady();
    return reply.status(ready ? 200 : 503).type('text/plain; charset=utf-8').send(ready ? 'ready' : 'not ready');
  });
}
