import { QuarryError } from '../errors/quarry-error.js';
import type { Principal, Protocol } from '../pipeline/types.js';

/** A JSON-schema type a tool argument may have (tools take flat objects of simple values, or lists of strings). */
export type ToolArgumentType = 'integer' | 'number' | 'string' | 'boolean' | 'string-list';

/** Who calls a tool, through which door, and when to give up. */
export interface ToolCallContext {
  readonly principal: Principal;
  readonly protocol: Protocol;
  readonly signal: AbortSignal;
}

/**
 * A tool a plugin offers to agents (e.g. a user function with `as_tool`), independent of
 * the protocol that exposes it: the MCP plugin lists and calls every registered tool.
 */
export interface RuntimeTool {
  readonly name: string;
  readonly description: string;
  /** Arguments are required unless `required: false`. */
  readonly arguments: ReadonlyArray<{ readonly name: string; readonly type: ToolArgumentType; readonly description?: string; readonly required?: boolean }>;
  /** The plugin that registered it, for logs and collisions. */
  readonly owner: string;
  /** Runs the tool; the text is what the caller receives (JSON for every tool of Quarry's). Throws a QuarryError on failure. */
  call(input: Readonly<Record<string, unknown>>, context: ToolCallContext): Promise<string>;
}

/**
 * The runtime's tools, filled by plugins (in `startup`, when what they offer is known) and
 * read by the protocols that expose tools. Plugins never import each other; this is their
 * meeting point. Names are unique, case-sensitively as MCP compares them.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, RuntimeTool>();

  register(tool: RuntimeTool): void {
    const existing = this.#tools.get(tool.name);
    if (existing) throw new QuarryError('PLUGIN_FAILED', `tool "${tool.name}" of plugin "${tool.owner}" has the name of a tool of plugin "${existing.owner}"`);
    this.#tools.set(tool.name, tool);
  }

  /** Every registered tool, in registration order. */
  list(): readonly RuntimeTool[] {
    return [...this.#tools.values()];
  }

  get(name: string): RuntimeTool | undefined {
    return this.#tools.get(name);
  }
}
