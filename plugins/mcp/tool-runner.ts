import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toQuarryError } from '../../core/errors/quarry-error.js';
import { encodeJson } from '../../core/http/encoders/index.js';
import type { Principal } from '../../core/pipeline/types.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import { taskHistory } from '../../core/tasks/task-history.js';

/** What a tool handler knows about its call: who asked, and when to give up. */
export interface ToolCallContext {
  readonly principal: Principal;
  readonly signal: AbortSignal;
}

/**
 * Runs SQL through the shared pipeline (cache, policy, metrics labelled `protocol=mcp`,
 * task history) and returns the rows as JSON text, byte for byte what /v1/sql answers.
 * Tools only read: the caller's principal loses write permission, so a write is refused
 * by the pipeline's own policy with its own error.
 */
export async function queryAsJsonText(runtime: PluginRuntime, sql: string, call: ToolCallContext): Promise<string> {
  const principal: Principal = { ...call.principal, canWrite: false, readOnlyBecause: 'the MCP sql tool only reads, whatever the key: write over HTTP or Flight' };
  const { result } = await runtime.query({ sql, protocol: 'mcp', principal, signal: call.signal });
  const chunks: Buffer[] = [];
  for await (const chunk of encodeJson({ schema: result.schema, batches: result.batches })) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Like queryAsJsonText, parsed: for small internal answers (DESCRIBE) the tools reshape. */
export async function queryRows(runtime: PluginRuntime, sql: string, call: ToolCallContext): Promise<Array<Record<string, unknown>>> {
  return JSON.parse(await queryAsJsonText(runtime, sql, call)) as Array<Record<string, unknown>>;
}

/** A tool's failure as the client sees it: `isError` with the Quarry error body, not a transport failure. */
export function toolError(error: unknown): CallToolResult {
  const failure = toQuarryError(error);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(failure.toJSON()) }] };
}

/**
 * Wraps one tool call: runs it, turns failures into tool errors and records a task
 * history row `tool_use::<name>` (the SQL it ran gets its own `sql_query` rows).
 */
export async function runTool(
  runtime: PluginRuntime,
  name: string,
  input: unknown,
  body: () => Promise<string>,
): Promise<CallToolResult> {
  const startTime = new Date();
  let outcome: CallToolResult;
  let errorMessage: string | undefined;
  try {
    outcome = { content: [{ type: 'text', text: await body() }] };
  } catch (error) {
    outcome = toolError(error);
    errorMessage = toQuarryError(error).message;
  }
  const first = outcome.content[0];
  taskHistory(runtime.hooks)?.record({
    task: `tool_use::${name}`,
    input: JSON.stringify(input ?? {}),
    capturedOutput: first?.type === 'text' ? first.text : undefined,
    startTime,
    endTime: new Date(),
    ...(errorMessage !== undefined ? { errorMessage } : {}),
    labels: { tool: name, protocol: 'mcp' },
  });
  return outcome;
}
