import { QuarryError } from '../errors/quarry-error.js';
import { jsonDeeperThan, MAX_JSON_DEPTH } from './json-depth.js';

/**
 * A route's raw body (a Buffer: the server parses no content type itself) as JSON; an empty
 * body is undefined. Text that is not JSON, or nests deeper than MAX_JSON_DEPTH, is
 * BODY_INVALID_JSON naming the body (`what`) and what the route accepts.
 */
export function parseJsonBody(body: unknown, what: string, accepted: string): unknown {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new QuarryError('BODY_INVALID_JSON', `the ${what} body is not JSON (${(error as Error).message}); ${accepted}`);
  }
  if (jsonDeeperThan(value)) throw new QuarryError('BODY_INVALID_JSON', `the ${what} body nests deeper than ${MAX_JSON_DEPTH} levels; ${accepted}`);
  return value;
}
