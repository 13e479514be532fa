/**
 * Sessions and credentials on /v1/mcp: a session resumed by a second client, deleted
 * (later use: 404), expired when idle, closed on shutdown; API keys as on every endpoint;
 * a key that may write still cannot write through the sql tool.
 */
import test from 'ava';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startRuntime, type TestRuntime } from '../helpers/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { createMcpPlugin, MCP_PLUGIN_NAME } from '../../plugins/mcp/index.js';
import { ACCESS_FILES, KEYS, accessManifest } from '../access/access-fixtures.js';
import { connectClient, JSON_POST_HEADERS, rawRequest, textOf, TOOLS_LIST_BODY } from './mcp-helpers.js';

/** The idle limit of the expiry test's own runtime: long beside two loopback requests, even on a loaded machine. */
const IDLE_MS = 1_000;

let context: TestRuntime;
const writer = { 'x-api-key': KEYS.writer };

test.before(async () => {
  context = await startRuntime({ manifest: accessManifest(), files: ACCESS_FILES });
});

test.after.always(async () => {
  await context?.runtime.stop();
});

function hostHeader(): string {
  return new URL(context.baseUrl).host;
}

test('a second client resumes a session by its id; DELETE ends it and later use is 404', async (t) => {
  const first = await connectClient(context.baseUrl, { headers: writer });
  const sessionId = first.transport.sessionId;
  t.truthy(sessionId);
  const second = await connectClient(context.baseUrl, { headers: writer, sessionId });
  t.is(second.transport.sessionId, sessionId);
  const result = await second.client.callTool({ name: 'sql', arguments: { query: 'SELECT count(*) AS n FROM events' } });
  t.is(textOf(result), '[{"n":2}]');

  await first.transport.terminateSession();
  const error = await t.throwsAsync(second.client.callTool({ name: 'get_readiness', arguments: {} }));
  t.true(error instanceof StreamableHTTPError);
  t.is((error as StreamableHTTPError).code, 404);
  const raw = await rawRequest(context.baseUrl, { method: 'GET', headers: { ...writer, host: hostHeader(), accept: 'text/event-stream', 'mcp-session-id': sessionId! } });
  t.is(raw.status, 404);
  await first.client.close();
  await second.client.close();
});

test('GET and DELETE without a session id are 400', async (t) => {
  for (const method of ['GET', 'DELETE']) {
    const response = await rawRequest(context.baseUrl, { method, headers: { ...writer, host: hostHeader(), accept: 'text/event-stream' } });
    t.is(response.status, 400, method);
  }
});

test('an idle session expires (a session with an open GET stream is not idle)', async (t) => {
  // A runtime of its own with a short idle limit, so expiry is testable (the shared one keeps
  // the default: a short limit there expired other tests' sessions on a loaded machine).
  const bundle = defaultPlugins().map((plugin) => (plugin.name === MCP_PLUGIN_NAME ? createMcpPlugin({ sessionIdleMs: IDLE_MS }) : plugin));
  const own = await startRuntime({ manifest: accessManifest(), files: ACCESS_FILES, bundle });
  t.teardown(() => own.runtime.stop());
  const host = new URL(own.baseUrl).host;
  // A raw client: the SDK client keeps a GET stream open, which counts as activity.
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const opened = await rawRequest(own.baseUrl, { headers: { ...JSON_POST_HEADERS, ...writer, host }, body: initialize });
  t.is(opened.status, 200);
  const sessionId = String(opened.headers['mcp-session-id']);
  const inSession = { ...JSON_POST_HEADERS, ...writer, host, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
  t.is((await rawRequest(own.baseUrl, { headers: inSession, body: TOOLS_LIST_BODY })).status, 200);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 3));
  t.is((await rawRequest(own.baseUrl, { headers: inSession, body: TOOLS_LIST_BODY })).status, 404);
});

test('a client accepting JSON only gets a JSON session', async (t) => {
  const initialize = JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...writer, host: hostHeader() };
  const opened = await rawRequest(context.baseUrl, { headers, body: initialize });
  t.regex(String(opened.headers['content-type']), /application\/json/);
  const sessionId = String(opened.headers['mcp-session-id']);
  const listed = await rawRequest(context.baseUrl, { headers: { ...headers, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' }, body: TOOLS_LIST_BODY });
  t.is(listed.status, 200);
  t.is((JSON.parse(listed.body) as { result: { tools: unknown[] } }).result.tools.length, 5);
  t.is((await rawRequest(context.baseUrl, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': sessionId } })).status, 200);
});

test('API keys apply: none or a wrong one is 401 before MCP', async (t) => {
  const missing = await rawRequest(context.baseUrl, { headers: { ...JSON_POST_HEADERS, host: hostHeader() }, body: TOOLS_LIST_BODY });
  t.is(missing.status, 401);
  t.is((JSON.parse(missing.body) as { error: { code: string } }).error.code, 'API_KEY_MISSING');
  const wrong = await rawRequest(context.baseUrl, { headers: { ...JSON_POST_HEADERS, host: hostHeader(), 'x-api-key': 'not-a-key' }, body: TOOLS_LIST_BODY });
  t.is(wrong.status, 401);
  t.is((JSON.parse(wrong.body) as { error: { code: string } }).error.code, 'API_KEY_INVALID');
  const error = await t.throwsAsync(connectClient(context.baseUrl, { headers: { authorization: 'Bearer not-a-key' } }));
  t.regex(String(error?.message), /401|API_KEY_INVALID/);
  const bearer = await connectClient(context.baseUrl, { headers: { authorization: `Bearer ${KEYS.reader}` } });
  t.is(textOf(await bearer.client.callTool({ name: 'sql', arguments: { query: 'SELECT 1 AS one' } })), '[{"one":1}]');
  await bearer.client.close();
});

test('the sql tool is read-only even for a key that may write to a read_write dataset', async (t) => {
  const { client } = await connectClient(context.baseUrl, { headers: writer });
  const result = await client.callTool({ name: 'sql', arguments: { query: "INSERT INTO events VALUES (3, 'three')" } });
  t.true(result.isError);
  const body = JSON.parse(textOf(result)) as { error: { code: string; message: string } };
  t.is(body.error.code, 'WRITE_NOT_ALLOWED');
  t.regex(body.error.message, /may only read \(the MCP sql tool only reads, whatever the key/);
  t.notRegex(body.error.message, /use a key with :rw/, "a :rw caller is not told to use a :rw key");
  // The same key writes through /v1/sql: the refusal is the tool's, not the key's.
  const count = await context.sql('SELECT count(*) AS n FROM events', { headers: writer });
  t.is(await count.text(), '[{"n":2}]');
  await client.close();
});

test('an SSE session stream ends when the runtime stops', async (t) => {
  // A separate runtime: stopping it must not wait for the open GET stream.
  const own = await startRuntime({ manifest: accessManifest({ keys: false }), files: ACCESS_FILES });
  const { client } = await connectClient(own.baseUrl);
  await client.listTools();
  const started = Date.now();
  await own.runtime.stop();
  t.true(Date.now() - started < 5000);
  await client.close();
});
