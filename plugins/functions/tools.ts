import type { Hooks } from '../../core/hooks/hooks.js';
import type { FunctionDeclaration } from './schema.js';
import { parseFunctionType, quoteIdentifier, sqlType } from './types.js';

/** A JSON-schema type an MCP tool argument can have. */
export type ToolArgumentType = 'integer' | 'number' | 'string' | 'boolean';

/** A user function offered as an MCP tool (scalar, `as_tool: true`, simple argument types). */
export interface FunctionTool {
  readonly name: string;
  readonly description: string;
  readonly arguments: ReadonlyArray<{ name: string; type: ToolArgumentType }>;
  /** The query that calls the function: run it through `runtime.query` with `parameters` in argument order. */
  readonly sql: string;
}

/** Per runtime (keyed by its hooks object), filled when functions are registered at start-up. */
const toolsByRuntime = new WeakMap<Hooks, FunctionTool[]>();

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

/** The tool of a registered function, or the reason it is not one. */
export function functionTool(declaration: FunctionDeclaration): FunctionTool | string {
  if (!declaration.as_tool) return 'as_tool is false';
  if (declaration.kind !== 'scalar') return 'table functions are never tools';
  const toolArguments: Array<{ name: string; type: ToolArgumentType }> = [];
  for (const arg of declaration.signature.args) {
    const type = toolArgumentType(arg.type);
    if (!type) return `argument ${arg.name} has type ${arg.type}; tools take int64, float64, utf8 or boolean only`;
    toolArguments.push({ name: arg.name, type });
  }
  const casts = declaration.signature.args.map((arg, index) => `CAST($${index + 1} AS ${sqlType(parseFunctionType(arg.type))})`);
  return {
    name: declaration.name,
    description: declaration.description ?? `SQL function ${declaration.name}`,
    arguments: toolArguments,
    sql: `SELECT ${quoteIdentifier(declaration.name)}(${casts.join(', ')}) AS result`,
  };
}

export function setFunctionTools(hooks: Hooks, tools: FunctionTool[]): void {
  toolsByRuntime.set(hooks, tools);
}

/**
 * The user functions the MCP server may list as tools (empty when runtime.functions is off).
 * Read it after start-up (e.g. on each tools/list): functions are registered in `startup`.
 */
export function userFunctionTools(hooks: Hooks): readonly FunctionTool[] {
  return toolsByRuntime.get(hooks) ?? [];
}
