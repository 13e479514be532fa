import { QuarryError } from '../../core/errors/quarry-error.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { createHostAllowList } from './allowed-hosts.js';
import './errors.js';
import { MCP_ROUTE, registerMcpRoutes } from './routes.js';
import { mcpSchema, type McpConfig } from './schema.js';
import { DEFAULT_SESSION_IDLE_MS, McpSessions } from './sessions.js';

export const MCP_PLUGIN_NAME = 'mcp';

export interface McpPluginOptions {
  /** Close sessions idle for this long (default 30 minutes); tests shorten it. */
  sessionIdleMs?: number;
}

/** The MCP server at /v1/mcp: Streamable HTTP, Quarry's SQL tools, a Host allow-list. */
export function createMcpPlugin(options: McpPluginOptions = {}): QuarryPlugin {
  return {
    name: MCP_PLUGIN_NAME,
    manifest: [{ path: 'runtime.mcp', schema: mcpSchema }],
    apply(runtime) {
      const config = runtime.section<McpConfig>('runtime.mcp');
      const allowList = createHostAllowList(config?.allowed_hosts);
      if (allowList.disabled) runtime.log.warn('runtime.mcp.allowed_hosts is ["*"]: /v1/mcp accepts any Host, with no DNS-rebinding protection');
      const listenerScheme = runtime.tls ? 'https' : 'http';

      // At the transport stage, before API keys: a rebound page is refused whatever it sends.
      runtime.hooks.request.tap({ name: MCP_PLUGIN_NAME, stage: STAGE.TRANSPORT }, (request) => {
        if (request.protocol !== 'http' || request.route !== MCP_ROUTE) return;
        const refusal = allowList.refusal(request.headers['host'], request.headers['origin'], listenerScheme);
        if (refusal) throw new QuarryError('MCP_HOST_FORBIDDEN', refusal);
      });

      const sessions = new McpSessions(options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS, runtime.log);
      registerMcpRoutes(runtime, sessions);

      // Just before the HTTP listener closes: open GET streams would otherwise hold it open.
      runtime.hooks.shutdown.stop.tapPromise({ name: MCP_PLUGIN_NAME, stage: STAGE.STOP_LISTENERS - 1 }, () => sessions.closeAll());
    },
  };
}
