import { QuarryError } from '../../core/errors/quarry-error.js';
import { whenClientGone } from '../../core/http/client-gone.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from '../../core/http/json-depth.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import { parseCacheControl } from '../../core/http/cache-control.js';
import type { Embedder } from './models/embedder.js';
import type { QueryEmbeddings } from './query-embeddings.js';
import type { SearchIndexes } from './search-indexes.js';
import { parseSearchRequest } from './search-request.js';
import type { SearchService } from './search-service.js';

/** Inputs one POST /v1/embeddings may carry. */
const MAX_EMBEDDING_INPUTS = 2_048;

/** The raw body (a Buffer: the server parses no content type itself) as JSON; empty means undefined. */
function jsonBody(body: unknown, code: 'SEARCH_INVALID_REQUEST', what: string): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new QuarryError('BODY_INVALID_JSON', `the ${what} body is not JSON (${(error as Error).message})`);
  }
  if (jsonDeeperThan(value)) throw new QuarryError(code, `the ${what} body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value;
}

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
    const searchRequest = parseSearchRequest(jsonBody(request.body, 'SEARCH_INVALID_REQUEST', 'search'));
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
    const body = jsonBody(request.body, 'SEARCH_INVALID_REQUEST', 'embeddings') as { input?: unknown; model?: unknown } | undefined;
    const accepted = 'send {"model": "<an embeddings: name>", "input": "text" or ["text", ...]}';
    if (!body || typeof body !== 'object' || typeof body.model !== 'string') throw new QuarryError('SEARCH_INVALID_REQUEST', `model is missing; ${accepted}`);
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > MAX_EMBEDDING_INPUTS || !inputs.every((input) => typeof input === 'string' && input.length > 0)) {
      throw new QuarryError('SEARCH_INVALID_REQUEST', `input must be a non-empty text or a list of 1 to ${MAX_EMBEDDING_INPUTS} non-empty texts; ${accepted}`);
    }
    const embedder = parts.queryEmbeddings.embedder(body.model);
    const controller = new AbortController();
    whenClientGone(reply.raw, () => controller.abort());
    const vectors = await Promise.all((inputs as string[]).map((input) => parts.queryEmbeddings.embed(embedder.name, input, controller.signal)));
    return reply.type('application/json; charset=utf-8').send({
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding: Array.from(embedding.vector) })),
      model: embedder.name,
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  });
}
