import type { DatasetConnector, EngineSource } from '../../core/engine/sources/connector.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { quoteLiteral } from '../../core/engine/sql-text.js';
import type { OutboundClient } from '../../core/outbound/client.js';
import { basicAuthorization, clientTimeoutMs, maxRetries, parseHeaders, type Params } from './connection-params.js';
import type { Pagination } from './graphql-pagination.js';
import { parseJsonPointer, valueAt } from './json-pointer.js';
import { Mirror, NdjsonWriter } from './mirror.js';

/** A runaway cursor must not page forever. */
const MAX_PAGES = 100_000;

/**
 * `graphql:https://endpoint`: POSTs `graphql_query`, takes the rows at `json_pointer` and,
 * when the query selects `pageInfo`, follows `endCursor` page by page. Rows are written as
 * newline-delimited JSON into the local mirror; a GraphQL `errors` answer fails the refresh.
 */
export function createGraphqlConnector(outbound: OutboundClient): DatasetConnector {
  return {
    schemes: ['graphql'],
    async resolve(dataset): Promise<EngineSource> {
      const params = dataset.params;
      const endpoint = parseEndpoint(dataset.name, dataset.location);
      const query = params['graphql_query'];
      if (query === undefined || query.trim() === '') {
        throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset.name}: params.graphql_query is required (the GraphQL query whose results are the rows)`);
      }
      // graphql (the parser) loads only when a dataset uses this connector: start-up imports no connector library it does not need.
      const { findPagination } = await import('./graphql-pagination.js');
      let pagination: Pagination | undefined;
      try {
        pagination = findPagination(query);
      } catch (error) {
        throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset.name}: params.graphql_query is not usable: ${(error as Error).message}`);
      }
      const pointer = rowsPointer(dataset.name, params, pagination);
      const headers: Record<string, string> = { ...parseHeaders(dataset.name, 'http_headers', params['http_headers']), 'Content-Type': 'application/json', Accept: 'application/json' };
      const authorization = graphqlAuthorization(dataset.name, params);
      if (authorization) headers['Authorization'] = authorization;
      const timeoutMs = clientTimeoutMs(dataset.name, params);
      const retries = maxRetries(dataset.name, params);
      const mirror = new Mirror(dataset.baseDirectory, dataset.name, 'json');
      mirror.ensurePlaceholder();

      const fetchPage = async (text: string, signal: AbortSignal): Promise<unknown> => {
        const response = await outbound.request({
          url: endpoint,
          method: 'POST',
          headers,
          body: JSON.stringify({ query: text }),
          connector: 'graphql',
          dataset: { name: dataset.name, params },
          timeoutMs,
          maxRetries: retries,
          signal,
        });
        let document: unknown;
        try {
          document = JSON.parse(response.body!.toString('utf8'));
        } catch {
          throw invalidResponse(dataset.name, endpoint, 'the answer is not JSON');
        }
        const errors = (document as { errors?: Array<{ message?: string }> }).errors;
        if (Array.isArray(errors) && errors.length > 0) {
          throw invalidResponse(dataset.name, endpoint, `GraphQL errors: ${errors.map((error) => error.message ?? JSON.stringify(error)).join('; ').slice(0, 500)}`);
        }
        return document;
      };

      return {
        kind: 'engine',
        tableExpression: `read_json_auto(${quoteLiteral(mirror.file)}, format = 'newline_delimited', sample_size = -1)`,
        allowedPaths: [mirror.file],
        allowedDirectories: [],
        async synchronise(signal) {
          await mirror.replace(async (temporary) => {
            const writer = new NdjsonWriter(temporary);
            const seen = new Set<string>();
            let cursor: string | undefined;
            for (let page = 0; page < MAX_PAGES; page++) {
              const document = await fetchPage(pagination ? pagination.queryAfter(cursor) : query, signal);
              const rows = valueAt(document, pointer);
              if (!Array.isArray(rows)) {
                throw invalidResponse(dataset.name, endpoint, `json_pointer /${pointer.join('/')} does not point at an array in the answer`);
              }
              const unwrapEdges = pointer[pointer.length - 1] === 'edges';
              for (const row of rows) await writer.write(unwrapEdges && typeof row === 'object' && row !== null && 'node' in row ? (row as { node: unknown }).node : row);
              if (!pagination) break;
              const pageInfo = valueAt(document, ['data', ...pagination.connectionPath, 'pageInfo']) as { hasNextPage?: unknown; endCursor?: unknown } | undefined;
              if (pageInfo?.hasNextPage !== true) break;
              if (typeof pageInfo.endCursor !== 'string' || seen.has(pageInfo.endCursor)) {
                throw invalidResponse(dataset.name, endpoint, `pageInfo.hasNextPage is true but endCursor ${JSON.stringify(pageInfo.endCursor)} does not advance`);
              }
              seen.add(pageInfo.endCursor);
              cursor = pageInfo.endCursor;
            }
            await writer.close();
          });
        },
      };
    },
  };
}

function parseEndpoint(dataset: string, location: string): URL {
  try {
    const url = new URL(location);
    if (url.protocol === 'https:' || url.protocol === 'http:') return url;
  } catch {
    // Reported below.
  }
  throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: from "graphql:${location}" does not name an endpoint; write graphql:https://host/graphql`);
}

function rowsPointer(dataset: string, params: Params, pagination: Pagination | undefined): string[] {
  const text = params['json_pointer'];
  if (text !== undefined) {
    const tokens = parseJsonPointer(text);
    if (!tokens) throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: params.json_pointer "${text}" is not a JSON pointer; write it like /data/users/nodes`);
    return tokens;
  }
  if (pagination?.rowsKey) return ['data', ...pagination.connectionPath, pagination.rowsKey];
  throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: params.json_pointer is required (where the rows are in the answer, e.g. /data/users/nodes) unless the query paginates a connection selecting nodes or edges`);
}

function graphqlAuthorization(dataset: string, params: Params): string | undefined {
  const token = params['graphql_auth_token'];
  const user = params['graphql_auth_user'];
  const password = params['graphql_auth_pass'];
  if (token !== undefined && (user !== undefined || password !== undefined)) {
    throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: set params.graphql_auth_token (bearer) or params.graphql_auth_user with graphql_auth_pass (basic), not both`);
  }
  if (token !== undefined) return `Bearer ${token}`;
  if ((user === undefined) !== (password === undefined)) {
    throw new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: basic authentication needs both params.graphql_auth_user and params.graphql_auth_pass`);
  }
  return user !== undefined ? basicAuthorization(user, password!) : undefined;
}

function invalidResponse(dataset: string, endpoint: URL, reason: string): QuarryError {
  return new QuarryError('UPSTREAM_RESPONSE_INVALID', `dataset ${dataset}: ${endpoint.origin}${endpoint.pathname}: ${reason}`);
}
