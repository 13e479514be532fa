import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';

const MANIFEST = `runtime:
  functions:
    enabled: true
functions:
  - name: add_tax
    from: sql
    description: price with VAT
    volatility: immutable
    signature:
      args: [{ name: price, type: float64 }, { name: rate, type: float64 }]
      returns: decimal(10,2)
    body: price * (1 + rate)
  - name: shout
    from: sql
    signature: { args: [{ name: text, type: utf8 }], returns: string }
    body_ref: functions/shout.sql
  - name: series
    from: sql
    kind: table
    signature:
      args: [{ name: upto, type: int64 }]
      returns: [{ name: n, type: int32 }, { name: label, type: utf8 }]
    body: SELECT range AS n, 'row ' || range AS label FROM range(upto)
  - name: hidden
    from: sql
    enabled: false
    signature: { returns: int64 }
    body: "1"
`;

const files = { 'functions/shout.sql': "upper(text) || '!';\n" };

async function json(response: Response): Promise<unknown> {
  if (response.status !== 200) throw new Error(`${response.status}: ${await response.text()}`);
  return response.json();
}

test('sql scalar and table functions are registered, typed, and listed', async (t) => {
  await withRuntime(t, { manifest: MANIFEST, files }, async ({ runtime, sql, baseUrl }) => {
    t.deepEqual(await json(await sql('SELECT add_tax(10, 0.2) AS total, shout(\'hi\') AS loud', { accept: 'application/json' })), [{ total: 12, loud: 'HI!' }]);
    t.deepEqual(await json(await sql('SELECT n, label FROM series(2) ORDER BY n', { accept: 'application/json' })), [
      { n: 0, label: 'row 0' },
      { n: 1, label: 'row 1' },
    ]);
    const types = await runtime.engine.runInternal("SELECT typeof(add_tax(1, 1)) AS scalar_type, (SELECT typeof(n) FROM series(1)) AS column_type");
    t.deepEqual(types, [{ scalar_type: 'DECIMAL(10,2)', column_type: 'INTEGER' }]);
    t.true((await sql('SELECT hidden()')).status >= 400, 'a disabled function is not registered');

    t.deepEqual(await json(await fetch(`${baseUrl}/v1/functions`)), [
      { name: 'add_tax', kind: 'scalar', volatility: 'immutable', from: 'sql', description: 'price with VAT' },
      { name: 'shout', kind: 'scalar', volatility: 'volatile', from: 'sql' },
      { name: 'series', kind: 'table', volatility: 'volatile', from: 'sql' },
    ]);
    const users = await json(await sql("SELECT name, source, kind, volatility, \"from\", description FROM list_udfs() WHERE source = 'user'", { accept: 'application/json' }));
    t.deepEqual(users, [
      { name: 'add_tax', source: 'user', kind: 'scalar', volatility: 'immutable', from: 'sql', description: 'price with VAT' },
      { name: 'series', source: 'user', kind: 'table', volatility: 'volatile', from: 'sql', description: null },
      { name: 'shout', source: 'user', kind: 'scalar', volatility: 'volatile', from: 'sql', description: null },
    ]);
    const builtins = (await json(await sql("SELECT name, kind FROM list_udfs() WHERE source = 'builtin' AND name IN ('upper', 'add_tax__body')", { accept: 'application/json' }))) as unknown[];
    t.deepEqual(builtins, [{ name: 'upper', kind: null }], 'built-ins listed, helper macros hidden');

    t.deepEqual(
      runtime.tools.list().map((tool) => tool.name),
      ['add_tax', 'shout'],
      'scalar functions with tool-eligible argument types are MCP tools',
    );
  });
});

test('sql functions answer over Flight SQL too', async (t) => {
  await withRuntime(t, { manifest: MANIFEST, files, flight: true }, async ({ runtime }) => {
    const { FlightSqlClient } = await import('../../core/flight/client/flight-sql-client.js');
    const client = FlightSqlClient.connect({ endpoint: `grpc://${runtime.flightEndpoint}` });
    try {
      const { table } = await client.query("SELECT add_tax(100, 0.1)::DOUBLE AS total, (SELECT count(*) FROM series(5)) AS rows");
      t.deepEqual(table.toArray().map((row) => row.toJSON()), [{ total: 110, rows: 5n }]);
    } finally {
      client.close();
    }
  });
});

test('with runtime.functions.enabled false nothing is registered', async (t) => {
  const manifest = MANIFEST.replace('enabled: true', 'enabled: false');
  await withRuntime(t, { manifest, files }, async ({ runtime, sql, baseUrl, logs }) => {
    t.deepEqual(await json(await fetch(`${baseUrl}/v1/functions`)), []);
    t.deepEqual(await json(await sql("SELECT count(*) AS n FROM list_udfs() WHERE source = 'user'", { accept: 'application/json' })), [{ n: 0 }]);
    t.true(((await json(await sql("SELECT count(*) AS n FROM list_udfs()", { accept: 'application/json' }))) as Array<{ n: number }>)[0]!.n > 100);
    t.true((await sql('SELECT add_tax(1, 1)')).status >= 400);
    t.deepEqual(runtime.tools.list(), []);
    t.true(logs.some((record) => record.message.includes('runtime.functions.enabled is false')));
  });
});

test('a body that does not bind stops start-up with the function named', async (t) => {
  const manifest = `runtime:
  functions:
    enabled: true
functions:
  - name: broken
    from: sql
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    body: x + no_such_column
`;
  const error = await t.throwsAsync(withRuntime(t, { manifest }, async () => undefined));
  t.is((error as { code?: string }).code, 'FUNCTION_REGISTRATION_FAILED');
  t.regex(error!.message, /^functions\[0\] \(broken\): failed to parse function body as a SQL expression: Binder Error: .*no_such_column/);
});

test('a body that does not parse stops start-up with the function named', async (t) => {
  const manifest = `runtime:
  functions:
    enabled: true
functions:
  - name: unparsable
    from: sql
    kind: table
    signature: { returns: [{ name: a, type: int64 }] }
    body: SELEC 1 AS a
`;
  const error = await t.throwsAsync(withRuntime(t, { manifest }, async () => undefined));
  t.regex(error!.message, /^functions\[0\] \(unparsable\): failed to parse function body as a SELECT: Parser Error/);
});
