import type { AsyncScalarFunction } from '../../core/engine/native/async-scalar.js';
import { BlockList, isIP } from 'node:net';
import { parseDuration, parseSize } from '../../core/units.js';
import type { FunctionDeclaration } from './schema.js';
import type { HttpBatchClient, HttpOutcome } from './http-batch.js';
import { httpScalarFunction, jsonPostHeaders } from './http-scalar.js';
import { parseFunctionType, type FunctionType } from './types.js';

/** Remote function params with Spice's defaults. */
export interface RemoteOptions {
  timeoutMs: number;
  batchSize: number;
  batchConcurrency: number;
  maxResponseBytes: number;
  authBearer: string | undefined;
}

function integerParam(params: Record<string, unknown>, key: string, fallback: number, maximum: number): number {
  const value = params[key];
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > maximum) throw new Error(`params.${key} must be a whole number from 1 to ${maximum}, got ${String(value)}`);
  return number;
}

/** Reads and checks the params of an http(s) function; throws with the param named. */
export function remoteOptions(params: Record<string, unknown>): RemoteOptions {
  const timeout = params.timeout === undefined ? 30_000 : parseDuration(String(params.timeout));
  if (timeout === undefined || timeout <= 0) throw new Error(`params.timeout must be a duration such as 30s, got ${String(params.timeout)}`);
  const size = params.max_response_bytes === undefined ? 10 * 1024 * 1024 : parseSize(String(params.max_response_bytes));
  if (size === undefined || size <= 0) throw new Error(`params.max_response_bytes must be a size such as 10MiB, got ${String(params.max_response_bytes)}`);
  return {
    timeoutMs: timeout,
    batchSize: integerParam(params, 'batch_size', 1024, 100_000),
    batchConcurrency: integerParam(params, 'batch_concurrency', 4, 64),
    maxResponseBytes: size,
    authBearer: params.auth_bearer === undefined ? undefined : String(params.auth_bearer),
  };
}

/**
 * `allowed_endpoint_ranges` (a list or comma-separated CIDRs): the endpoint host must be a
 * literal IP inside one of them. Checked once at start-up, as an SSRF guard.
 */
export function checkEndpointRanges(endpoint: string, ranges: unknown): void {
  if (ranges === undefined) return;
  const list = (Array.isArray(ranges) ? ranges.map(String) : String(ranges).split(',')).map((range) => range.trim()).filter(Boolean);
  const host = new URL(endpoint).hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  const allowed = new BlockList();
  for (const range of list) {
    const [address, prefix] = range.split('/');
    const rangeFamily = isIP(address ?? '');
    if (rangeFamily === 0) throw new Error(`params.allowed_endpoint_ranges: "${range}" is not a CIDR range such as 10.0.0.0/8`);
    allowed.addSubnet(address!, prefix === undefined ? (rangeFamily === 4 ? 32 : 128) : Number(prefix), rangeFamily === 4 ? 'ipv4' : 'ipv6');
  }
  if (family === 0 || !allowed.check(host, family === 4 ? 'ipv4' : 'ipv6')) {
    throw new Error(`endpoint ${endpoint} is outside params.allowed_endpoint_ranges (${list.join(', ')})`);
  }
}

/** A JSON value from the endpoint → what the output vector accepts for the declared type. */
export function fromJson(value: unknown, type: FunctionType): unknown {
  if (value === null || value === undefined) return null;
  if (type.kind !== 'primitive') return null;
  switch (type.family) {
    case 'bigint':
      return BigInt(typeof value === 'number' ? Math.trunc(value) : String(value));
    case 'integer':
    case 'float':
      return Number(value);
    case 'boolean':
      return Boolean(value);
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

/**
 * The engine function of an http(s) function: each DuckDB chunk (up to 2048 rows) is cut into
 * batches of batch_size rows, POSTed as {"rows":[{arg: value}]} with batch_concurrency in
 * flight, and each answer must be {"values":[...]} with one value per row.
 */
export function remoteScalarFunction(declaration: FunctionDeclaration, options: RemoteOptions, http: HttpBatchClient): AsyncScalarFunction {
  const returns = parseFunctionType(declaration.signature.returns as string);
  const headers = jsonPostHeaders('application/json', options.authBearer);
  return httpScalarFunction({
    name: declaration.name,
    where: `function ${declaration.name}`,
    from: declaration.from,
    args: declaration.signature.args.map((arg) => ({ name: arg.name, type: parseFunctionType(arg.type) })),
    returns,
    evaluate: async (rows) => {
      const batches: Array<typeof rows> = [];
      for (let start = 0; start < rows.length; start += options.batchSize) batches.push(rows.slice(start, start + options.batchSize));
      const outcomes = await http.postAll(
        batches.map((batch) => ({ url: declaration.from, headers, body: JSON.stringify({ rows: batch }) })),
        { timeoutMs: options.timeoutMs, maxBytes: options.maxResponseBytes, concurrency: options.batchConcurrency },
      );
      return outcomes.flatMap((outcome, index) => batchValues(outcome, batches[index]!.length).map((value) => fromJson(value, returns)));
    },
  });
}

/** Checks one answer: 2xx, JSON, `values` with exactly one entry per row sent. */
function batchValues(outcome: HttpOutcome, expected: number): unknown[] {
  if (!outcome.ok) throw new Error(outcome.error);
  if (outcome.status < 200 || outcome.status > 299) throw new Error(`HTTP ${outcome.status}: ${outcome.text.slice(0, 256)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(outcome.text);
  } catch {
    throw new Error(`the answer is not JSON: ${outcome.text.slice(0, 256)}`);
  }
  const values = (parsed as { values?: unknown }).values;
  if (!Array.isArray(values)) throw new Error('the answer has no "values" list');
  if (values.length !== expected) throw new Error(`expected ${expected} values, got ${values.length}`);
  return values;
}
