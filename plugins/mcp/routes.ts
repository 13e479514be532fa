import { jsonDeeperThan, MAX_JSON_DEPTH } from '../../core/http/json-depth.js';
import type { FastifyReply } from 'fastify';
import type { PluginRuntime } from '../../core/plugins/types.js';
import { acceptBoth } from './accept-header.js';
import type { McpSessions } from './sessions.js';

export const MCP_ROUTE = '/v1/mcp';

type SdkSession = typeof import('./sdk-session.js');
let sdkSession: Promise<SdkSession> | undefined;

/** The SDK half of the endpoint, imported once, on the first request that needs it (see sdk-session.ts). */
function loadSdkSession(): Promise<SdkSession> {
  sdkSession ??= import('./sdk-session.js');
  return sdkSession;
}

/** JSON-RPC error codes the SDK's transport uses for the same conditions. */
const JSON_RPC_PARSE_ERROR = -32700;
const JSON_RPC_SERVER_ERROR = -32000;
const JSON_RPC_SESSION_NOT_FOUND = -32001;

/** Answers in JSON-RPC shape, as MCP clients expect from this endpoint even for transport errors. */
function sendJsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.status(status).type('application/json').send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

type ParsedBody = { ok: true; value: unknown } | { ok: false; message: string };

/** Bodies reach routes as raw Buffers (core/http/server.ts): MCP's are JSON-RPC. */
function parseBody(body: unknown): ParsedBody {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
  if (text.trim() === '') return { ok: false, message: 'Parse error: the request body is empty (expected a JSON-RPC message)' };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    return { ok: false, message: `Parse error: ${(error as Error).message}` };
  }
  if (jsonDeeperThan(value)) return { ok: false, message: `Parse error: the message nests deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, value };
}

/**
 * `/v1/mcp`, MCP Streamable HTTP: POST carries JSON-RPC (`initialize` opens a session whose
 * id comes back in `Mcp-Session-Id`; other POSTs without an id are answered statelessly),
 * GET opens the session's server-to-client SSE stream, DELETE ends the session.
 * Host checks, API keys and client certificates ran before this, in the core's hooks.
 */
export function registerMcpRoutes(runtime: PluginRuntime, sessions: McpSessions): void {
  runtime.http.route({
    method: ['POST', 'GET', 'DELETE'],
    url: MCP_ROUTE,
    handler: async (request, reply) => {
      let body: unknown;
      if (request.method === 'POST') {
        const parsed = parseBody(request.body);
        if (!parsed.ok) return sendJsonRpcError(reply, 400, JSON_RPC_PARSE_ERROR, parsed.message);
        body = parsed.value;
        if (await (await loadSdkSession()).answeredByRevision(runtime, request, reply, body)) return reply;
      }
      const sessionHeader = request.headers['mcp-session-id'];
      const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
      if (sessionId !== undefined) {
        const session = sessions.get(sessionId);
        if (!session) return sendJsonRpcError(reply, 404, JSON_RPC_SESSION_NOT_FOUND, 'Session not found: it was deleted, expired or never existed; initialize a new one');
        if (request.method === 'POST' && session.jsonOnly) acceptBoth(request.raw);
        const { inSession } = await loadSdkSession();
        return inSession(runtime, sessions, session, request, reply, body);
      }
      if (request.method !== 'POST') {
        return sendJsonRpcError(reply, 400, JSON_RPC_SERVER_ERROR, `Bad Request: ${request.method} ${MCP_ROUTE} needs an Mcp-Session-Id header (from initialize)`);
      }
      const { isInitialization, openSession, answerStatelessly } = await loadSdkSession();
      if (isInitialization(body)) return openSession(runtime, sessions, request, reply, body);
      return answerStatelessly(runtime, request, reply, body);
    },
  });
}
