/**
 * Response formats of `/v1/sql`, chosen from `Accept` (the first recognised type wins; an
 * absent, `*\/*` or unrecognised header gives the spec's default: JSON rows as text/plain).
 * An explicit `text/plain` asks for Spice's aligned table, and Spice's
 * `application/vnd.spiceai.sql.v1+json` for its `{schema, data, row_count}` envelope.
 */
export type ResultFormat = 'json-text' | 'json' | 'csv' | 'arrow' | 'table' | 'spice-json';

export const CONTENT_TYPES: Record<ResultFormat, string> = {
  'json-text': 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  arrow: 'application/vnd.apache.arrow.stream',
  table: 'text/plain; charset=utf-8',
  'spice-json': 'application/vnd.spiceai.sql.v1+json',
};

/**
 * The name a door keeps a result's body under in its memo (`ResultMemo`), per format: one
 * string each, so the hit path hashes no new string per request.
 */
export const MEMO_NAMES: Record<ResultFormat, string> = {
  'json-text': 'http:json-text',
  json: 'http:json',
  csv: 'http:csv',
  arrow: 'http:arrow',
  table: 'http:table',
  'spice-json': 'http:spice-json',
};

const byMediaType: Record<string, ResultFormat> = {
  'application/json': 'json',
  'text/csv': 'csv',
  'application/vnd.apache.arrow.stream': 'arrow',
  'text/plain': 'table',
  // Spice's envelope (spice.js sqlJson): { schema, data, row_count }.
  'application/vnd.spiceai.sql.v1+json': 'spice-json',
  '*/*': 'json-text',
};

/** Clients send the same few Accept headers again and again: each is ranked once. */
const negotiated = new Map<string, ResultFormat>();
const MAX_REMEMBERED = 256;

export function negotiateFormat(accept: string | undefined): ResultFormat {
  if (!accept) return 'json-text';
  let format = negotiated.get(accept);
  if (format === undefined) {
    format = rank(accept);
    if (negotiated.size >= MAX_REMEMBERED) negotiated.clear();
    negotiated.set(accept, format);
  }
  return format;
}

function rank(accept: string): ResultFormat {
  const ranked = accept
    .split(',')
    .map((part, index) => {
      const [type, ...parameters] = part.trim().split(';');
      const quality = parameters.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { type: (type ?? '').trim().toLowerCase(), q: quality ? Number(quality.slice(2)) : 1, index };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const entry of ranked) {
    const format = byMediaType[entry.type];
    if (format) return format;
  }
  return 'json-text';
}
