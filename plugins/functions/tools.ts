import { encodeJson } from '../../core/http/encoders/index.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import type { RuntimeTool, ToolArgumentType } from '../../core/tools/tool-registry.js';
import type { FunctionDeclaration } from './schema.js';
import { parseFunctionType, quoteIdentifier, sqlType } from './types.js';

/** A user function offered as a tool: the registry entry without its owner (the runtime adds it). */
export type FunctionTool = Omit<RuntimeTool, 'owner'>;

/** Spice's rule: only int64, float64, utf8 and boolean arguments can come from a tool call. */
function toolArgumentType(declared: string): ToolArgumentType | undefined {
  const type = parseFunctionType(declared);
  if (type.kind !== 'primitive') return undefined;
  if (type.sql === 'BIGINT') return 'integer';
  if (type.sql === 'DOUBLE') return 'number';
  if (type.sql === 'VARCHAR') return 'string';
  if (type.sql === 'BOOLEAN') return 'boolean';
  return undefined;
}

/**
 * The tool of a registered scalar function, or the reason it is not one. A call runs
 * `SELECT fn(CAST($1 AS T1), ...) AS result` through the shared pipeline (policy, metrics,
 * task history) as a reader, and answers the rows as /v1/sql's JSON does: `[{"result": ...}]`.
 */
export function functionTool(runtime: PluginRuntime, declaration: FunctionDeclaration): FunctionTool | string {
  if (!declaration.as_tool) return 'as_tool is false';
  if (declaration.kind !== 'scalar') return 'table functions are never tools';
  const toolArguments: Array<{ name: string; type: ToolArgumentType }> = [];
  for (const arg of declaration.signature.args) {
    const type = toolArgumentType(arg.type);
    if (!type) return `argument ${arg.name} has type ${arg.type}; tools take int64, float64, utf8 or boolean only`;
    toolArguments.push({ name: arg.name, type });
  }
  const casts = declaration.signature.args.map((arg, index) => `CAST($${index + 1} AS ${sqlType(parseFunctionType(arg.type))})`);
  const sql = `SELECT ${quoteIdentifier(declaration.name)}(${casts.join(', ')}) AS result`;
  return {
    name: declaration.name,
    description: declaration.description ?? `SQL function ${declaration.name}`,
    arguments: toolArguments,
    async call(input, context) {
      const parameters = toolArguments.map((arg) => input[arg.name] ?? null);
      const principal = { ...context.principal, canWrite: false, readOnlyBecause: 'function tools only read, whatever the key' };
      const { result } = await runtime.query({ sql, parameters, protocol: context.protocol, principal, signal: context.signal });
      const chunks: Buffer[] = [];
      for await (const chunk of encodeJson({ schema: result.schema, batches: result.batches })) chunks.push(chunk);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}
