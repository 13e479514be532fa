/**
 * The MCP tools over real HTTP with the SDK's client: initialize, list, call each tool,
 * failures as tool errors, writes refused, and a stateless JSON-only client.
 */
import test from 'ava';
import { QUICKSTART_MANIFEST, startRuntime, type TestRuntime } from '../helpers/runtime.js';
import { taskHistory } from '../../plugins/task-history/recorder.js';
import { connectClient, JSON_POST_HEADERS, rawRequest, textOf, TOOLS_LIST_BODY, type ConnectedClient } from './mcp-helpers.js';

let context: TestRuntime;
let connected: ConnectedClient;

test.before(async () => {
  context = await startRuntime({ manifest: QUICKSTART_MANIFEST, withQuickstartData: true });
  connected = await connectClient(context.baseUrl);
});

test.after.always(async () => {
  await connected?.client.close();
  await context?.runtime.stop();
});

test('initialize names the server and opens a session', (t) => {
  t.is(connected.client.getServerVersion()?.name, 'quarry');
  t.truthy(connected.client.getServerCapabilities()?.tools);
  t.regex(connected.transport.sessionId ?? '', /^[0-9a-f-]{36}$/);
});

test('tools/list: every tool with a description and an input schema', async (t) => {
  const { tools } = await connected.client.listTools();
  t.deepEqual(tools.map((tool) => tool.name).sort(), ['get_readiness', 'list_datasets', 'sample_rows', 'sql', 'table_schema']);
  for (const tool of tools) {
    t.true((tool.description ?? '').length > 40, tool.name);
    t.is(tool.inputSchema.type, 'object', tool.name);
  }
  const sql = tools.find((tool) => tool.name === 'sql');
  t.deepEqual(sql?.inputSchema.required, ['query']);
});

test('sql answers the rows as JSON text, like /v1/sql', async (t) => {
  const query = 'SELECT count(*) AS n FROM orders';
  const result = await connected.client.callTool({ name: 'sql', arguments: { query } });
  t.falsy(result.isError);
  const viaHttp = await (await context.sql(query)).text();
  t.is(textOf(result), viaHttp);
  t.true((JSON.parse(textOf(result)) as Array<{ n: number }>)[0]!.n > 0);
});

test('sql: a failing query is a tool error with the engine code and message', async (t) => {
  const result = await connected.client.callTool({ name: 'sql', arguments: { query: 'SELECT no_such_column FROM orders' } });
  t.true(result.isError);
  const body = JSON.parse(textOf(result)) as { error: { code: string; message: string } };
  t.is(body.error.code, 'SQL_INVALID');
  t.regex(body.error.message, /no_such_column/);
});

test('sql: a write is refused with the pipeline error', async (t) => {
  const result = await connected.client.callTool({ name: 'sql', arguments: { query: 'INSERT INTO orders SELECT * FROM orders LIMIT 1' } });
  t.true(result.isError);
  t.is((JSON.parse(textOf(result)) as { error: { code: string } }).error.code, 'WRITE_NOT_ALLOWED');
});

test('list_datasets: name, description, columns count and state', async (t) => {
  const result = await connected.client.callTool({ name: 'list_datasets', arguments: {} });
  const datasets = JSON.parse(textOf(result)) as Array<{ name: string; columns: number; state: string; description: unknown }>;
  t.deepEqual(datasets.map((dataset) => dataset.name).sort(), ['customers', 'orders']);
  for (const dataset of datasets) {
    t.true(dataset.columns > 0);
    t.is(dataset.state, 'ready');
    t.true('description' in dataset);
  }
});

test('table_schema: full gives name, type, nullable; minimal gives names', async (t) => {
  const full = JSON.parse(textOf(await connected.client.callTool({ name: 'table_schema', arguments: { tables: ['orders'] } }))) as Array<{ table: string; columns: Array<{ name: string; type: string; nullable: boolean }> }>;
  t.is(full[0]?.table, 'orders');
  const first = full[0]!.columns[0]!;
  t.is(typeof first.name, 'string');
  t.is(typeof first.type, 'string');
  t.is(typeof first.nullable, 'boolean');
  const minimal = JSON.parse(textOf(await connected.client.callTool({ name: 'table_schema', arguments: { tables: ['orders', 'customers'], output: 'minimal' } }))) as Array<{ columns: string[] }>;
  t.is(minimal.length, 2);
  t.deepEqual(minimal[0]!.columns, full[0]!.columns.map((column) => column.name));
  const unknown = await connected.client.callTool({ name: 'table_schema', arguments: { tables: ['nope'] } });
  t.true(unknown.isError);
  t.regex(textOf(unknown), /DATASET_NOT_FOUND/);
});

test('sample_rows: default 10, limit honoured, max 1000, unknown or hostile names refused', async (t) => {
  const ten = JSON.parse(textOf(await connected.client.callTool({ name: 'sample_rows', arguments: { dataset: 'orders' } }))) as unknown[];
  t.is(ten.length, 10);
  const three = JSON.parse(textOf(await connected.client.callTool({ name: 'sample_rows', arguments: { dataset: 'ORDERS', limit: 3 } }))) as unknown[];
  t.is(three.length, 3);
  const tooMany = await connected.client.callTool({ name: 'sample_rows', arguments: { dataset: 'orders', limit: 1001 } });
  t.true(tooMany.isError);
  const hostile = await connected.client.callTool({ name: 'sample_rows', arguments: { dataset: 'orders; DROP TABLE orders' } });
  t.true(hostile.isError);
  t.regex(textOf(hostile), /DATASET_NOT_FOUND/);
});

test('get_readiness: ready, with each dataset state', async (t) => {
  const readiness = JSON.parse(textOf(await connected.client.callTool({ name: 'get_readiness', arguments: {} }))) as { ready: boolean; datasets: Array<{ name: string; state: string }> };
  t.true(readiness.ready);
  t.deepEqual(readiness.datasets.map((dataset) => dataset.state), ['ready', 'ready']);
});

test('tool calls are recorded in task history as tool_use::<name>', async (t) => {
  await connected.client.callTool({ name: 'get_readiness', arguments: {} });
  await taskHistory(context.runtime.hooks)?.flush();
  const response = await context.sql("SELECT DISTINCT task FROM runtime.task_history WHERE task LIKE 'tool_use::%' ORDER BY task");
  const tasks = (await response.json() as Array<{ task: string }>).map((row) => row.task);
  t.true(tasks.includes('tool_use::get_readiness'), JSON.stringify(tasks));
});

test('stateless: a JSON-only client gets JSON without a session', async (t) => {
  const response = await rawRequest(context.baseUrl, { headers: { 'content-type': 'application/json', accept: 'application/json', host: new URL(context.baseUrl).host }, body: TOOLS_LIST_BODY });
  t.is(response.status, 200);
  t.regex(String(response.headers['content-type']), /application\/json/);
  t.is(response.headers['mcp-session-id'], undefined);
  t.is((JSON.parse(response.body) as { result: { tools: unknown[] } }).result.tools.length, 5);
  const call = await rawRequest(context.baseUrl, {
    headers: { ...JSON_POST_HEADERS, host: new URL(context.baseUrl).host },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'sql', arguments: { query: 'SELECT 1 AS one' } } }),
  });
  t.is(call.status, 200);
  t.is((JSON.parse(call.body) as { result: { content: Array<{ text: string }> } }).result.content[0]?.text, '[{"one":1}]');
});

test('malformed JSON is a 400 JSON-RPC parse error', async (t) => {
  const response = await rawRequest(context.baseUrl, { headers: { ...JSON_POST_HEADERS, host: new URL(context.baseUrl).host }, body: '{not json' });
  t.is(response.status, 400);
  t.is((JSON.parse(response.body) as { error: { code: number } }).error.code, -32700);
});
