import { z } from 'zod';

/** `runtime.mcp`: the MCP endpoint's Host allow-list (DNS-rebinding protection). */
export const mcpSchema = z
  .strictObject({
    allowed_hosts: z
      .array(z.string().min(1))
      .optional()
      .describe('Accepted Host values on /v1/mcp: hostnames, host:port or origins. Unset: localhost, 127.0.0.1, ::1 only. ["*"]: any host.'),
  })
  .prefault({})
  .describe('The MCP server endpoint /v1/mcp.');

export type McpConfig = z.output<typeof mcpSchema>;
