import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { QUARRY_VERSION } from '../../core/flight/server-version.js';
import { ANONYMOUS, type Principal } from '../../core/pipeline/types.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import type { McpSession, McpSessions } from './sessions.js';
import { registerTools, type CallerOf } from './tools.js';

export const MCP_ROUTE = '/v1/mcp';

const BOTH_ACCEPTED = 'application/json, text/event-stream';

/** JSON-RPC error codes the SDK's transport uses for the same conditions. */
const JSON_RPC_PARSE_ERROR = -32700;
const JSON_RPC_SERVER_ERROR = -32000;
const JSON_RPC_SESSION_NOT_FOUND = -32001;

/** The transport reads the caller from `req.auth` and hands it to tool handlers as `extra.authInfo`. */
type RequestWithAuth = IncomingMessage & { auth?: AuthInfo };

/** The principal the door authenticated for this request, as the transport passed it on. */
const callerOf: CallerOf = (extra) => {
  const principal = extra.authInfo?.extra?.['principal'] as Principal | undefined;
  return { principal: principal ?? ANONYMOUS, signal: extra.signal };
};

function createServer(runtime: PluginRuntime): McpServer {
  const server = new McpServer({ name: 'quarry', version: QUARRY_VERSION }, { capabilities: { tools: { listChanged: false } } });
  registerTools(server, runtime, callerOf);
  return server;
}

/** Answers in JSON-RPC shape, as MCP clients expect from this endpoint even for transport errors. */
function sendJsonRpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.status(status).type('application/json').send(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function acceptsEventStream(request: IncomingMessage): boolean {
  return /text\/event-stream/i.test(request.headers.accept ?? '');
}

/**
 * The SDK's transport refuses a POST whose Accept does not list both JSON and SSE, even when
 * it will answer JSON. Simple clients send `Accept: application/json` only; where Quarry
 * answers JSON anyway, widen their Accept so they are served instead of getting 406.
 */
function acceptBoth(request: IncomingMessage): void {
  request.headers.accept = BOTH_ACCEPTED;
  // The SDK builds its Web Request from rawHeaders (name, value, name, value, ...).
  const raw = request.rawHeaders;
  for (let index = raw.length - 2; index >= 0; index -= 2) {
    if (raw[index]?.toLowerCase() === 'accept') raw.splice(index, 2);
  }
  raw.push('accept', BOTH_ACCEPTED);
}

type ParsedBody = { ok: true; value: unknown } | { ok: false; message: string };

/** Bodies reach routes as raw Buffers (core/http/server.ts): MCP's are JSON-RPC. */
function parseBody(body: unknown): ParsedBody {
  const text = Buffer.isBuffer(body) ? body.toString('utf8') : typeof body === 'string' ? body : '';
  if (text.trim() === '') return { ok: false, message: 'Parse error: the request body is empty (expected a JSON-RPC message)' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: `Parse error: ${(error as Error).message}` };
  }
}

function isInitialization(body: unknown): boolean {
  return Array.isArray(body) ? body.some((message) => isInitializeRequest(message)) : isInitializeRequest(body);
}

/** Hands the raw request to the SDK: fastify must not answer it too. */
async function delegate(runtime: PluginRuntime, transport: StreamableHTTPServerTransport, request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<void> {
  const raw = request.raw as RequestWithAuth;
  const principal = request.inbound.principal;
  raw.auth = { token: '', clientId: principal.id, scopes: [], extra: { principal } };
  reply.hijack();
  try {
    await transport.handleRequest(raw, reply.raw, body);
  } catch (error) {
    runtime.log.error('MCP request failed', { error: (error as Error).message });
    if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
    if (!reply.raw.writableEnded) {
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
    }
  }
}

/** Runs one request of an existing session, counting it as activity until the response closes. */
async function inSession(runtime: PluginRuntime, sessions: McpSessions, session: McpSession, request: FastifyRequest, reply: FastifyReply, body: unknown) {
  const finished = sessions.use(session);
  reply.raw.once('close', finished);
  await delegate(runtime, session.transport, request, reply, body);
}

/** A new session, on `initialize`: JSON-only when the client cannot read SSE, SSE otherwise. */
async function openSession(runtime: PluginRuntime, sessions: McpSessions, request: FastifyRequest, reply: FastifyReply, body: unknown) {
  const jsonOnly = !acceptsEventStream(request.raw);
  if (jsonOnly) acceptBoth(request.raw);
  const server = createServer(runtime);
  const session: McpSession = {
    server,
    jsonOnly,
    lastUsed: Date.now(),
    active: 0,
    transport: new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: jsonOnly,
      onsessioninitialized: (id) => sessions.add(id, session),
    }),
  };
  session.transport.onclose = () => {
    if (session.transport.sessionId) sessions.remove(session.transport.sessionId);
  };
  session.transport.onerror = (error) => runtime.log.debug('MCP transport error', { error: error.message });
  await server.connect(session.transport);
  await inSession(runtime, sessions, session, request, reply, body);
}

/** A POST outside any session: one server and transport for this request only, answering JSON. */
async function answerStatelessly(runtime: PluginRuntime, request: FastifyRequest, reply: FastifyReply, body: unknown) {
  acceptBoth(request.raw);
  const server = createServer(runtime);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  (reply.raw as ServerResponse).once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await delegate(runtime, transport, request, reply, body);
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
      }
      const sessionHeader = request.headers['mcp-session-id'];
      const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
      if (sessionId !== undefined) {
        const session = sessions.get(sessionId);
        if (!session) return sendJsonRpcError(reply, 404, JSON_RPC_SESSION_NOT_FOUND, 'Session not found: it was deleted, expired or never existed; initialize a new one');
        if (request.method === 'POST' && session.jsonOnly) acceptBoth(request.raw);
        return inSession(runtime, sessions, session, request, reply, body);
      }
      if (request.method !== 'POST') {
        return sendJsonRpcError(reply, 400, JSON_RPC_SERVER_ERROR, `Bad Request: ${request.method} ${MCP_ROUTE} needs an Mcp-Session-Id header (from initialize)`);
      }
      if (isInitialization(body)) return openSession(runtime, sessions, request, reply, body);
      return answerStatelessly(runtime, request, reply, body);
    },
  });
}
