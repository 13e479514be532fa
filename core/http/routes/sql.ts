import type { FastifyInstance } from 'fastify';
import { negotiateFormat } from '../negotiate.js';
import { sendResult } from '../send-result.js';
import { readSqlBody } from '../sql-body.js';
import type { RouteContext } from './context.js';
import { LazyAbort } from '../../pipeline/lazy-abort.js';
import { whenClientGone } from '../client-gone.js';
import type { HitLane } from '../hit-lane.js';

/** `POST /v1/sql`: one statement in, the result streamed out as JSON rows, CSV or Arrow IPC. */
export function registerSqlRoute(app: FastifyInstance, context: RouteContext, lane: HitLane): void {
  // Cache hits with a body encoded before take the lane in front of fastify; the route serves the rest.
  lane.setAnswerer((options, encoding, respond, refuse) => context.pipeline.answerEncoded(options, encoding, respond, refuse));
  app.post('/v1/sql', async (request, reply) => {
    const { sql, parameters } = readSqlBody(request);
    const format = negotiateFormat(request.headers.accept);
    // The engine query stops when the client goes away before the response is complete.
    const abort = new LazyAbort();
    whenClientGone(reply.raw, () => abort.abort());
    const { result } = await context.pipeline.execute({
      sql,
      parameters,
      protocol: 'http',
      principal: request.inbound.principal,
      inbound: request.inbound,
      signal: abort,
    });
    return sendResult(reply, result, format, request.inbound.responseHeaders, context.log);
  });
}
