import { QuarryError } from '../../core/errors/quarry-error.js';
import { whenClientGone } from '../../core/http/client-gone.js';
import { parseJsonBody } from '../../core/http/json-body.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import { parseCacheControl } from '../../core/http/cache-control.js';
import { EMBEDDINGS_REQUEST_SHAPE, encodedEmbedding, parseEmbeddingsRequest } from './embeddings-request.js';
import type { Embedder } from './models/embedder.js';
import type { QueryEmbeddings } from './query-embeddings.js';
import type { SearchIndexes } from './search-indexes.js';
import { parseSearchRequest, SEARCH_REQUEST_SHAPE } from './search-request.js';
import type { SearchService } from './search-service.js';


export interface SearchRoutesParts {
  readonly service: SearchService;
  readonly indexes: SearchIndexes;
  readonly embedders: ReadonlyMap<string, Embedder>;
  readonly queryEmbeddings: QueryEmbeddings;
}

/**
 * - `POST /v1/search`: Spice's search (full-text, vector, hybrid), `{results, duration_ms}`,
 *   with `Search-Results-Cache-Status` / `-Scope` when the search_results cache is on;
 * - `GET /v1/embeddings`: the configured embedding models; `POST /v1/embeddings`: OpenAI's
 *   create-embeddings call, answered by a configured model (the embeddings cache first);
 * - `GET /v1/search/indexes`: each searchable dataset's indexes and their last build.
 */
export function registerSearchRoutes(runtime: PluginRuntime, parts: SearchRoutesParts): void {
  runtime.http.post('/v1/search', async (request, reply) => {
    const started = performance.now();
    const searchRequest = parseSearchRequest(parseJsonBody(request.body, 'search', SEARCH_REQUEST_SHAPE));
    const header = request.headers['cache-control'];
    const controller = new AbortController();
    whenClientGone(reply.raw, () => controller.abort());
    const answer = await parts.service.search(searchRequest, {
      principal: request.inbound.principal,
      protocol: 'http',
      signal: controller.signal,
      directives: parseCacheControl(Array.isArray(header) ? header.join(',') : header),
    });
    if (answer.cacheStatus) reply.headers({ 'search-results-cache-status': answer.cacheStatus, 'search-results-cache-scope': answer.cacheScope, ...(answer.cacheScope === 'user' ? { vary: 'X-API-Key, Authorization' } : {}) });
    return reply.type('application/json; charset=utf-8').send({ results: answer.results, duration_ms: Math.round(performance.now() - started) });
  });

  runtime.http.get('/v1/search/indexes', async (_request, reply) => reply.type('application/json; charset=utf-8').send(parts.indexes.status()));

  runtime.http.get('/v1/embeddings', async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send([...parts.embedders.values()].map((embedder) => ({ name: embedder.name, from: embedder.from, dimensions: embedder.dimensions() ?? null }))),
  );

  runtime.http.post('/v1/embeddings', async (request, reply) => {
    const body = parseEmbeddingsRequest(parseJsonBody(request.body, 'embeddings', EMBEDDINGS_REQUEST_SHAPE));
    const embedder = parts.queryEmbeddings.embedder(body.model);
    if (body.dimensions !== undefined && body.dimensions !== embedder.dimensions()) {
      throw new QuarryError('SEARCH_INVALID_REQUEST', `dimensions ${body.dimensions}: embeddings model ${embedder.name} answers ${embedder.dimensions()} dimensions; omit dimensions or send ${embedder.dimensions()}`);
    }
    const controller = new AbortController();
    whenClientGone(reply.raw, () => controller.abort());
    const vectors = await parts.queryEmbeddings.embedMany(embedder.name, [body.input].flat(), controller.signal);
    // No usage: Quarry does not count the model's tokens, and a made-up count would mislead.
    return reply.type('application/json; charset=utf-8').send({
      object: 'list',
      data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encodedEmbedding(vector, body.encoding_format) })),
      model: embedder.name,
    });
  });
}
