import type { AsyncScalarFunction } from '../../core/engine/native/async-scalar.js';
import { checkEndpointRanges, fromJson, remoteOptions } from './remote.js';
import { httpScalarFunction, jsonPostHeaders } from './http-scalar.js';
import type { ToolDeclaration } from './schema.js';
import type { HttpBatchClient, HttpOutcome } from './http-batch.js';
import { parseFunctionType, type FunctionType } from './types.js';

/** Spice's bound: at most 16 tool calls in flight per query chunk. */
export const TOOL_CALL_CONCURRENCY = 16;

/** A tool usable from SQL: `as_sql: true`, a signature, and a kind this release can call per row. */
export type SqlTool = ToolDeclaration & { from: string; signature: NonNullable<ToolDeclaration['signature']> };

/**
 * Why a tool with `as_sql: true` stays LLM-only, or undefined when it can be a SQL function.
 * Only `from: http(s)://` tools can be called here: the other tool kinds of Spice (built-in
 * tools such as `sql`, proxied MCP servers) would be a query inside a query or an MCP round
 * trip per row, which this release does not offer.
 */
export function sqlToolRefusal(tool: ToolDeclaration): string | undefined {
  if (!tool.signature) return 'it has no signature (args and returns are needed to register a SQL function)';
  if (tool.from === undefined || !/^https?:\/\/.+/i.test(tool.from)) {
    return `from: ${tool.from ?? '(none)'} cannot be called from SQL in this release: only http(s):// tools can`;
  }
  return undefined;
}

/**
 * The answer of one call, as the declared return type. The body is JSON (a number, string,
 * boolean or null); a utf8 tool may also answer plain text, taken as it is.
 */
function toolValue(outcome: HttpOutcome, returns: FunctionType): unknown {
  if (!outcome.ok) throw new Error(outcome.error);
  if (outcome.status < 200 || outcome.status > 299) throw new Error(`HTTP ${outcome.status}: ${outcome.text.slice(0, 256)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(outcome.text);
  } catch {
    if (returns.kind === 'primitive' && returns.family === 'string') return outcome.text;
    throw new Error(`the answer is not JSON: ${outcome.text.slice(0, 256)}`);
  }
  return fromJson(parsed, returns);
}

/**
 * The scalar UDF of an `as_sql` tool: one POST per row with the arguments as a JSON object
 * (`{"address": "..."}`), at most 16 in flight, answers written back in row order. A chunk
 * (≤ 2048 rows) must be done within `params.timeout` (default 30s): that bounds how long an
 * engine thread waits for it. Always volatile: a tool may answer differently each call.
 */
export function sqlToolFunction(tool: SqlTool, http: HttpBatchClient): AsyncScalarFunction {
  const options = remoteOptions(tool.params);
  checkEndpointRanges(tool.from, tool.params.allowed_endpoint_ranges);
  const returns = parseFunctionType(tool.signature.returns);
  const headers = jsonPostHeaders('application/json, text/plain', options.authBearer);
  return httpScalarFunction({
    name: tool.name,
    where: `tool ${tool.name}`,
    from: tool.from,
    args: tool.signature.args.map((arg) => ({ name: arg.name, type: parseFunctionType(arg.type) })),
    returns,
    evaluate: async (rows) => {
      const jobs = rows.map((row) => ({ url: tool.from, headers, body: JSON.stringify(row) }));
      const outcomes = await http.postAll(jobs, { timeoutMs: options.timeoutMs, maxBytes: options.maxResponseBytes, concurrency: TOOL_CALL_CONCURRENCY, deadlineMs: options.timeoutMs });
      return outcomes.map((outcome, row) => {
        try {
          return toolValue(outcome, returns);
        } catch (error) {
          throw new Error(`row ${row + 1} of the chunk: ${(error as Error).message}`, { cause: error });
        }
      });
    },
  });
}
