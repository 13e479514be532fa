import { warnNotYetEffective } from '../../core/plugins/pending.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { mcpSchema } from './schema.js';

export const MCP_PLUGIN_NAME = 'mcp';

/** The MCP server at /v1/mcp (placeholder until the MCP issue). */
export function createMcpPlugin(): QuarryPlugin {
  return {
    name: MCP_PLUGIN_NAME,
    manifest: [{ path: 'runtime.mcp', schema: mcpSchema }],
    apply(runtime) {
      warnNotYetEffective(runtime, 'runtime.mcp', 'the MCP server');
    },
  };
}
