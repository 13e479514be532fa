import type { IncomingMessage } from 'node:http';
import type { FastifyReply } from 'fastify';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { QUARRY_VERSION } from '../../core/flight/server-version.js';

/*
 * MCP protocol revisions beyond the SDK's. The revision 2026-07-28 (the Python SDK 2.3's
 * default) drops the initialize handshake: a client probes `server/discover`, then sends
 * each request on its own, with the revision in the `MCP-Protocol-Version` header and its
 * identity in the request's `_meta`. Its requests and results are those of 2025-11-25 plus
 * `resultType` on every result and caching directives (`ttlMs`, `cacheScope`) on the ones a
 * client may cache. So Quarry answers `server/discover` itself, serves each other request of
 * such a client through the SDK's server (over its in-memory transport, no session), and
 * adds those fields to the answer.
 */

/** Revisions served without a session (request by request). */
export const STATELESS_REVISIONS = ['2026-07-28'] as const;

/** JSON-RPC code of 2026-07-28 for a protocol version the server does not speak; `data` lists what it does. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';
const SERVER_INFO_META_KEY = 'io.modelcontextprotocol/serverInfo';

export function supportedRevisions(): string[] {
  return [...STATELESS_REVISIONS, ...SUPPORTED_PROTOCOL_VERSIONS];
}

export function isStatelessRevision(version: string | undefined): boolean {
  return version !== undefined && (STATELESS_REVISIONS as readonly string[]).includes(version);
}

export function requestedRevision(request: IncomingMessage): string | undefined {
  const header = request.headers['mcp-protocol-version'];
  return Array.isArray(header) ? header[0] : header;
}

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: string | number;
  method: string;
  params?: { _meta?: Record<string, unknown> };
}

function isRequest(body: unknown, method?: string): body is JsonRpcRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const message = body as Partial<JsonRpcRequest>;
  return message.jsonrpc === '2.0' && (typeof message.id === 'string' || typeof message.id === 'number') && typeof message.method === 'string' && (method === undefined || message.method === method);
}

export function isDiscovery(body: unknown): body is JsonRpcRequest {
  return isRequest(body, 'server/discover');
}

/**
 * Answers `server/discover`: the revisions Quarry speaks, its capabilities and name. A probe
 * at a revision Quarry does not speak gets -32022 with the list, so the client can pick one
 * (or fall back to `initialize`).
 */
export function answerDiscovery(reply: FastifyReply, request: IncomingMessage, body: JsonRpcRequest): void {
  const asked = (body.params?._meta?.[PROTOCOL_VERSION_META_KEY] as string | undefined) ?? requestedRevision(request);
  const supported = supportedRevisions();
  if (asked !== undefined && !supported.includes(asked)) {
    refuseRevision(reply, asked, body.id);
    return;
  }
  const result = {
    supportedVersions: supported,
    capabilities: { tools: { listChanged: false } },
    instructions: 'Quarry: SQL over the datasets of its manifest. list_datasets and table_schema describe them; sql runs one read-only statement.',
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [SERVER_INFO_META_KEY]: { name: 'quarry', version: QUARRY_VERSION } },
  };
  void reply.status(200).type('application/json').send(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
}

/** A request at a revision Quarry does not speak: -32022 with what it does (HTTP 400). */
export function refuseRevision(reply: FastifyReply, requested: string, id: string | number | null): void {
  const error = {
    code: UNSUPPORTED_PROTOCOL_VERSION,
    message: `Unsupported protocol version ${requested}: this server speaks ${supportedRevisions().join(', ')}`,
    data: { supported: supportedRevisions(), requested },
  };
  void reply.status(400).type('application/json').send(JSON.stringify({ jsonrpc: '2.0', id, error }));
}

/** The id of a single JSON-RPC request, for an error answer; null for batches and notifications. */
export function requestId(body: unknown): string | number | null {
  return isRequest(body) ? body.id : null;
}

/** Results 2026-07-28 lets a client cache: they must say for how long and for whom. */
const CACHEABLE_METHODS = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

/**
 * An SDK answer as 2026-07-28 wants it: every result says `resultType: "complete"`, a
 * cacheable one `ttlMs: 0` (stale at once: tools depend on the manifest, which may reload)
 * and `cacheScope: "private"` (tools depend on the caller's key). Errors pass unchanged.
 */
export function asRevisionResult<T extends object>(answer: T, method: string): T {
  if (!('result' in answer) || typeof answer.result !== 'object' || answer.result === null) return answer;
  const result: Record<string, unknown> = { ...(answer.result as Record<string, unknown>), resultType: 'complete' };
  if (CACHEABLE_METHODS.has(method)) {
    result['ttlMs'] ??= 0;
    result['cacheScope'] ??= 'private';
  }
  return { ...answer, result };
}
