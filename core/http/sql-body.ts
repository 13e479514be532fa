import { jsonDeeperThan, MAX_JSON_DEPTH } from './json-depth.js';
import type { FastifyRequest } from 'fastify';
import { QuarryError } from '../errors/quarry-error.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads `POST /v1/sql`: the body is the SQL text, or with `Content-Type: application/json`
 * an object `{"sql": "...", "parameters": [...]}` with positional parameters for $1, $2, ...
 */
export function readSqlBody(request: FastifyRequest): { sql: string; parameters: unknown[] } {
  const body = request.body;
  if (!Buffer.isBuffer(body) || body.length === 0) {
    throw new QuarryError('BODY_EMPTY', 'the request body is empty: send the SQL text, or JSON {"sql": "...", "parameters": [...]} with Content-Type: application/json');
  }
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new QuarryError('BODY_INVALID_UTF8', 'the request body is not valid UTF-8: send the SQL text encoded as UTF-8');
  }
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/json') return { sql: text, parameters: [] };
  return readJsonBody(text);
}

function readJsonBody(text: string): { sql: string; parameters: unknown[] } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new QuarryError('BODY_INVALID_JSON', `the JSON body could not be parsed: ${(error as Error).message}`);
  }
  if (jsonDeeperThan(value)) throw new QuarryError('BODY_INVALID_JSON', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels; parameters are values, lists or structs a few levels deep`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new QuarryError('BODY_INVALID_JSON', 'the JSON body must be an object {"sql": "...", "parameters": [...]}');
  }
  const { sql, parameters, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) {
    throw new QuarryError('BODY_INVALID_JSON', `unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((key) => `"${key}"`).join(', ')} in the JSON body; accepted fields are "sql" and "parameters"`);
  }
  if (typeof sql !== 'string') throw new QuarryError('BODY_INVALID_JSON', 'the JSON body needs "sql": a string holding one SQL statement');
  if (parameters === undefined || parameters === null) return { sql, parameters: [] };
  if (!Array.isArray(parameters)) {
    throw new QuarryError('PARAMETERS_INVALID', '"parameters" must be an array of positional values for $1, $2, ... (named parameters are not supported)');
  }
  return { sql, parameters };
}
