import { QuarryError } from '../../core/errors/quarry-error.js';
import { parseDuration, MAX_DURATION_MS } from '../../core/units.js';

export type Params = Readonly<Record<string, string>>;

export function invalidParam(dataset: string, key: string, value: string, accepted: string): QuarryError {
  return new QuarryError('HTTP_SOURCE_PARAM_INVALID', `dataset ${dataset}: params.${key} "${value}" is not valid; ${accepted}`);
}

/** `client_timeout`: a duration (`30s`, `500ms`) or a number of seconds; default 30 s. */
export function clientTimeoutMs(dataset: string, params: Params): number {
  const text = params['client_timeout'];
  if (text === undefined) return 30_000;
  const ms = /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) * 1000 : parseDuration(text);
  if (ms === undefined || !(ms > 0) || ms > MAX_DURATION_MS) throw invalidParam(dataset, 'client_timeout', text, 'use a duration such as 30s or 500ms, or a number of seconds, at most 24.8 days');
  return ms;
}

/** `max_retries`: retries after the first attempt on 429/5xx/timeouts; default 3. */
export function maxRetries(dataset: string, params: Params): number {
  const text = params['max_retries'];
  if (text === undefined) return 3;
  if (!/^\d+$/.test(text.trim())) throw invalidParam(dataset, 'max_retries', text, 'use a whole number of retries, 0 or more (default 3)');
  return Number(text);
}

/** `http_headers`: `Name: value` pairs separated by `;` (or by `,` when no `;` is present). */
export function parseHeaders(dataset: string, key: string, text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === '') return {};
  const headers: Record<string, string> = {};
  for (const entry of text.split(text.includes(';') ? ';' : ',')) {
    if (entry.trim() === '') continue;
    const colon = entry.indexOf(':');
    const name = colon > 0 ? entry.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw invalidParam(dataset, key, '(redacted)', `write Name: value pairs separated by ";" or ",", e.g. "X-Api-Key: abc; Accept: text/csv" (entry without a valid header name: "${name || entry.trim().slice(0, 20)}")`);
    }
    headers[name] = entry.slice(colon + 1).trim();
  }
  return headers;
}

export function basicAuthorization(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
