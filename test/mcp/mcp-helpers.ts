/** Helpers of the MCP tests: an SDK client over real HTTP, and raw requests with any Host. */
import http from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface ConnectedClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/** Connects the SDK client to `{baseUrl}/v1/mcp`; with `sessionId` it resumes that session instead of initializing. */
export async function connectClient(baseUrl: string, options: { headers?: Record<string, string>; sessionId?: string } = {}): Promise<ConnectedClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/v1/mcp`), {
    requestInit: { headers: options.headers ?? {} },
    ...(options.sessionId !== undefined ? { sessionId: options.sessionId } : {}),
  });
  const client = new Client({ name: 'quarry-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** The first text content of a tool result. */
export function textOf(result: unknown): string {
  const first = (result as CallToolResult).content[0];
  if (first?.type !== 'text') throw new Error(`expected text content, got ${JSON.stringify(result)}`);
  return first.text;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * One HTTP request with exactly the headers given (fetch would not let a test set `Host`).
 * `baseUrl` is `http://127.0.0.1:PORT`.
 */
export function rawRequest(baseUrl: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  const url = new URL(`${baseUrl}/v1/mcp`);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: init.method ?? 'POST', headers: init.headers ?? {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(init.body);
  });
}

/** A JSON-RPC `tools/list` request body, the simplest stateless MCP call. */
export const TOOLS_LIST_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

export const JSON_POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
