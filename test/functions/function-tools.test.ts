/**
 * User functions with `as_tool` as MCP tools, end to end: the functions plugin registers
 * them in the runtime's tool registry (core/tools), the MCP plugin lists and calls them;
 * the real MCP SDK client over HTTP.
 */
import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';
import { connectClient, textOf } from '../mcp/mcp-helpers.js';

const MANIFEST = `runtime:
  functions:
    enabled: true
functions:
  - name: add_tax
    from: sql
    description: price with VAT
    signature:
      args: [{ name: price, type: float64 }, { name: rate, type: float64 }]
      returns: float64
    body: price * (1 + rate)
  - name: greet
    from: sql
    signature: { args: [{ name: who, type: utf8 }, { name: times, type: int64 }, { name: loud, type: boolean }], returns: utf8 }
    body: "'hi ' || CASE WHEN loud THEN upper(who) ELSE who END || ' x' || CAST(times AS VARCHAR)"
  - name: ratio
    from: sql
    signature: { args: [{ name: a, type: int64 }, { name: b, type: int64 }], returns: int64 }
    body: "CASE WHEN b = 0 THEN error('b must not be 0') ELSE a // b END"
  - name: secret_sauce
    from: sql
    as_tool: false
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    body: x + 1
  - name: on_dates
    from: sql
    signature: { args: [{ name: d, type: date32 }], returns: int64 }
    body: year(d)
  - name: sql
    from: sql
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    body: x
  - name: numbers
    from: sql
    kind: table
    signature: { args: [{ name: n, type: int64 }], returns: [{ name: i, type: int64 }] }
    body: SELECT range AS i FROM range(n)
`;

test('eligible scalar functions are MCP tools: listed with typed schemas, called through the pipeline', async (t) => {
  await withRuntime(t, { manifest: MANIFEST }, async ({ baseUrl, logs }) => {
    const { client } = await connectClient(baseUrl);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name).sort();
      // Not tools: as_tool false, a date argument, a table function, and `sql` (the built-in tool keeps its name).
      t.deepEqual(names, ['add_tax', 'get_readiness', 'greet', 'list_datasets', 'ratio', 'sample_rows', 'sql', 'table_schema']);
      const addTax = tools.find((tool) => tool.name === 'add_tax')!;
      t.is(addTax.description, 'price with VAT');
      t.deepEqual(addTax.inputSchema.required, ['price', 'rate']);
      t.deepEqual(addTax.inputSchema.properties, { price: { type: 'number' }, rate: { type: 'number' } });
      const greet = tools.find((tool) => tool.name === 'greet')!;
      t.is(greet.description, 'SQL function greet');
      t.deepEqual(greet.inputSchema.properties, { who: { type: 'string' }, times: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER }, loud: { type: 'boolean' } });
      t.true((tools.find((tool) => tool.name === 'sql')!.description ?? '').startsWith('Runs one read-only SQL query'), 'the built-in sql tool is the one listed');
      t.true(logs.some((record) => record.message === 'tool sql of plugin functions is not offered over MCP: the MCP server has a built-in tool of that name'));

      const taxed = await client.callTool({ name: 'add_tax', arguments: { price: 10, rate: 0.5 } });
      t.falsy(taxed.isError);
      t.is(textOf(taxed), '[{"result":15}]');
      const greeted = await client.callTool({ name: 'greet', arguments: { who: 'ann', times: 2, loud: true } });
      t.is(textOf(greeted), '[{"result":"hi ANN x2"}]');

      const failed = await client.callTool({ name: 'ratio', arguments: { a: 1, b: 0 } });
      t.true(failed.isError);
      const body = JSON.parse(textOf(failed)) as { error: { code: string; message: string } };
      t.is(body.error.code, 'QUERY_FAILED');
      t.regex(body.error.message, /b must not be 0/);
      t.is(textOf(await client.callTool({ name: 'ratio', arguments: { a: 7, b: 2 } })), '[{"result":3}]');

      // The SDK's server checks arguments against the schema before the function runs.
      const wrongType = await client.callTool({ name: 'add_tax', arguments: { price: 'ten', rate: 0.5 } });
      t.true(wrongType.isError);
      t.regex(textOf(wrongType), /price/);
    } finally {
      await client.close();
    }
  });
});

test('with runtime.functions.enabled false no function is a tool', async (t) => {
  await withRuntime(t, { manifest: MANIFEST.replace('enabled: true', 'enabled: false') }, async ({ baseUrl }) => {
    const { client } = await connectClient(baseUrl);
    try {
      const { tools } = await client.listTools();
      t.deepEqual(tools.map((tool) => tool.name).sort(), ['get_readiness', 'list_datasets', 'sample_rows', 'sql', 'table_schema']);
    } finally {
      await client.close();
    }
  });
});
