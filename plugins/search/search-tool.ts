import type { RuntimeTool } from '../../core/tools/tool-registry.js';
import { parseSearchRequest } from './search-request.js';
import type { SearchService } from './search-service.js';

/**
 * The `search` tool (Spice's built-in of that name), for MCP and any protocol listing the
 * runtime's tools: the same request and matches as POST /v1/search, as JSON text.
 */
export function searchTool(service: SearchService): Omit<RuntimeTool, 'owner'> {
  return {
    name: 'search',
    description:
      'Searches text columns of the datasets by meaning (vector search) and by words (full-text BM25), fused when both exist. Returns the best matches: the matched text per column, the dataset, the primary key, requested columns and a score.',
    arguments: [
      { name: 'text', type: 'string', description: 'What to search for' },
      { name: 'datasets', type: 'string-list', required: false, description: 'Datasets to search (default: every searchable dataset)' },
      { name: 'limit', type: 'integer', required: false, description: 'Number of matches (default 3)' },
      { name: 'where', type: 'string', required: false, description: 'A SQL predicate over the dataset\'s columns that matches must satisfy' },
      { name: 'additional_columns', type: 'string-list', required: false, description: 'Columns to return with each match' },
      { name: 'keywords', type: 'string-list', required: false, description: 'Words that must count in full-text matching, beside the text' },
    ],
    async call(input, context) {
      const request = parseSearchRequest(Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)));
      const answer = await service.search(request, { principal: context.principal, protocol: context.protocol, signal: context.signal, directives: undefined });
      return JSON.stringify(answer.results);
    },
  };
}
