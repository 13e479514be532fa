import { z } from 'zod';
import { QuarryError } from '../../core/errors/quarry-error.js';

/** Longest query text accepted: a query is words to find, not a document. */
export const MAX_TEXT_LENGTH = 10_000;
export const MAX_LIMIT = 1_000;

/**
 * A search request (Spice's `POST /v1/search` body; the MCP `search` tool's arguments):
 * `text`, optional `datasets` (default: every searchable one), `limit` (default 3),
 * `where` (a SQL predicate over the dataset's columns), `additional_columns`, `keywords`
 * (words added to the full-text query).
 */
export const searchRequestSchema = z.strictObject({
  text: z
    .string({ error: 'expected text: the words to search for' })
    .trim()
    .min(1, 'text is empty: send the words to search for')
    .max(MAX_TEXT_LENGTH, `text is longer than ${MAX_TEXT_LENGTH} characters`)
    .refine((text) => !text.includes('\u0000'), 'text contains a NUL character'),
  datasets: z.array(z.string().min(1), { error: 'expected datasets: a list of dataset names' }).optional(),
  limit: z.number({ error: 'expected limit: a whole number of results' }).int().min(1).max(MAX_LIMIT).default(3),
  where: z.string({ error: 'expected where: a SQL predicate over the dataset\'s columns, e.g. "year > 2020"' }).trim().min(1).max(MAX_TEXT_LENGTH).optional(),
  additional_columns: z.array(z.string().min(1), { error: 'expected additional_columns: a list of column names' }).max(100).default([]),
  /** Spice's: words added to the full-text query (not to the vector query). */
  keywords: z.array(z.string().min(1).max(1_000), { error: 'expected keywords: a list of words for full-text matching' }).max(100).optional(),
});

export type SearchRequest = z.output<typeof searchRequestSchema>;

export const SEARCH_REQUEST_SHAPE = 'send {"text": "...", "datasets": ["..."], "limit": 3, "where": "...", "additional_columns": ["..."], "keywords": ["..."]} (only text is required)';

/** A request body (already parsed JSON) as a search request, or SEARCH_INVALID_REQUEST naming what is wrong. */
export function parseSearchRequest(body: unknown): SearchRequest {
  if (body === undefined) throw new QuarryError('SEARCH_INVALID_REQUEST', `the search body is empty; ${SEARCH_REQUEST_SHAPE}`);
  const parsed = searchRequestSchema.safeParse(body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message));
    throw new QuarryError('SEARCH_INVALID_REQUEST', `${problems.join('; ')}; ${SEARCH_REQUEST_SHAPE}`);
  }
  // Spice's answer to an empty list.
  if (parsed.data.datasets?.length === 0) throw new QuarryError('SEARCH_INVALID_REQUEST', 'No data sources provided: datasets is an empty list; omit it to search every searchable dataset');
  return parsed.data;
}
