import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isInitializeRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { QUARRY_VERSION } from '../../core/flight/server-version.js';
import { ANONYMOUS, type Principal } from '../../core/pipeline/types.js';
import type { PluginRuntime } from '../../core/plugins/types.js';
import { acceptBoth, acceptsEventStream } from './accept-header.js';
import type { McpSession, McpSessions } from './sessions.js';
import { registerTools, type CallerOf } from './tools.js';
import { answerDiscovery, asRevisionResult, isDiscovery, isStatelessRevision, refuseRevision, requestId, requestedRevision, supportedRevisions } from './protocol-revisions.js';

/*
 * The half of /v1/mcp that uses the MCP SDK. routes.ts imports this module on the first
 * request that needs it: the SDK (with its zod 3 compatibility layer, zod-to-json-schema,
 * ajv and hono) takes ~300 ms to load, which a runtime nobody asks over MCP should not pay
 * at start-up.
 */

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

export function isInitialization(body: unknown): boolean {
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
export async function inSession(runtime: PluginRuntime, sessions: McpSessions, session: McpSession, request: FastifyRequest, reply: FastifyReply, body: unknown) {
  const finished = sessions.use(session);
  reply.raw.once('close', finished);
  await delegate(runtime, session.transport, request, reply, body);
}

/** A new session, on `initialize`: JSON-only when the client cannot read SSE, SSE otherwise. */
export async function openSession(runtime: PluginRuntime, sessions: McpSessions, request: FastifyRequest, reply: FastifyReply, body: unknown) {
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
export async function answerStatelessly(runtime: PluginRuntime, request: FastifyRequest, reply: FastifyReply, body: unknown) {
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
 * What the protocol revision decides before sessions do (see protocol-revisions.ts):
 * `server/discover` is answered here, a revision Quarry does not speak is refused with
 * -32022, a stateless revision's request is served on its own. False: the session path
 * serves the request. (A boolean, not the reply: a FastifyReply is thenable, and awaiting it
 * would wait for the response instead of saying it was sent.)
 */
export async function answeredByRevision(runtime: PluginRuntime, request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<boolean> {
  if (isDiscovery(body)) {
    answerDiscovery(reply, request.raw, body);
    return true;
  }
  const version = requestedRevision(request.raw);
  if (version === undefined) return false;
  if (!supportedRevisions().includes(version)) {
    refuseRevision(reply, version, requestId(body));
    return true;
  }
  if (!isStatelessRevision(version)) return false;
  await answerOneRequest(runtime, request, reply, body, version);
  return true;
}

/**
 * One request of a stateless revision: handed to a server of its own over the SDK's
 * in-memory transport (the caller as its auth info, as the HTTP transport passes it), and
 * its answer reshaped for the revision before it is sent as JSON. A notification gets 202.
 */
async function answerOneRequest(runtime: PluginRuntime, request: FastifyRequest, reply: FastifyReply, body: unknown, version: string): Promise<void> {
  if (Array.isArray(body) || typeof body !== 'object' || body === null) {
    void reply.status(400).type('application/json').send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: `Invalid Request: protocol ${version} takes one JSON-RPC message per request` } }));
    return;
  }
  const message = body as JSONRPCMessage & { id?: string | number; method?: string };
  const server = createServer(runtime);
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const principal = request.inbound.principal;
  const answer = new Promise<JSONRPCMessage | undefined>((resolve) => {
    clientEnd.onmessage = (reply) => {
      if ('id' in reply && reply.id === message.id && ('result' in reply || 'error' in reply)) resolve(reply);
    };
    clientEnd.onclose = () => resolve(undefined);
  });
  try {
    await server.connect(serverEnd);
    await clientEnd.start();
    await clientEnd.send(message, { authInfo: { token: '', clientId: principal.id, scopes: [], extra: { principal } } });
    if (message.id === undefined) {
      void reply.status(202).send();
      return;
    }
    // A client that leaves before its answer ends the wait (the response closes unsent).
    reply.raw.once('close', () => {
      if (!reply.raw.writableEnded) void clientEnd.close();
    });
    const answered = await answer;
    if (answered === undefined) return;
    void reply.status(200).type('application/json').send(JSON.stringify(asRevisionResult(answered, message.method ?? '')));
  } finally {
    await clientEnd.close();
    await server.close();
  }
}
