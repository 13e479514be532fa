/**
 * `tools:` entries with `as_sql: true`: http(s) tools called per row from SQL, against a
 * local HTTP server in a worker thread (the calls block the main thread; see remote-server.ts).
 */
import test from 'ava';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { withRuntime } from '../helpers/runtime.js';
import { startRemoteServer } from './remote-server.js';

function manifest(url: string, enabled = true): string {
  return `runtime:
  functions:
    enabled: ${enabled}
tools:
  - name: times_ten
    from: ${url}/tool/echo
    description: multiplies by ten, remotely
    as_sql: true
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    params: { allowed_endpoint_ranges: [127.0.0.0/8] }
  - name: greet
    from: ${url}/tool/text
    as_sql: true
    signature: { args: [{ name: name, type: utf8 }], returns: utf8 }
  - name: broken
    from: ${url}/tool/fail
    as_sql: true
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
  - name: sleepy
    from: ${url}/tool/slow
    as_sql: true
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    params: { timeout: 300ms }
  - name: no_signature
    from: ${url}/tool/echo
    as_sql: true
  - name: builtin_kind
    from: sql
    as_sql: true
    signature: { args: [{ name: q, type: utf8 }], returns: utf8 }
  - name: llm_only
    from: ${url}/tool/echo
`;
}

async function failure(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

test('as_sql tools are scalar functions: one call per row, at most 16 at once, row order kept', async (t) => {
  const server = await startRemoteServer();
  try {
    await withRuntime(t, { manifest: manifest(server.url), flight: true }, async ({ sql, baseUrl, logs, runtime }) => {
      // 100 rows; the server answers later rows sooner, so order must come from the caller.
      const response = await sql('SELECT list(times_ten(range) ORDER BY range) = list(range * 10 ORDER BY range) AS same, sum(times_ten(range)) AS total FROM range(100)', { accept: 'application/json' });
      t.is(response.status, 200, await response.clone().text());
      t.deepEqual(await response.json(), [{ same: true, total: 49500 }]);
      const inOrder = (await (await sql('SELECT times_ten(range) AS v FROM range(40)', { accept: 'application/json' })).json()) as Array<{ v: number }>;
      t.deepEqual(inOrder.map((row) => row.v), Array.from({ length: 40 }, (_, index) => index * 10), 'values in row order');
      const stats = await server.toolStats();
      t.true(stats.calls >= 240, `one call per row (${stats.calls})`);
      t.true(stats.maxInFlight <= 16 && stats.maxInFlight > 1, `bounded concurrency: ${stats.maxInFlight} in flight at most`);

      t.deepEqual(await (await sql("SELECT greet('ann') AS g, greet(NULL) AS n", { accept: 'application/json' })).json(), [{ g: 'hello ann', n: null }], 'a plain-text answer for a utf8 tool');

      const broken = await failure(await sql('SELECT broken(1)'));
      t.is(broken.status, 502);
      t.is(broken.code, 'FUNCTION_CALL_FAILED');
      t.regex(broken.message, /^tool broken \(http:\/\/127\.0\.0\.1:\d+\/tool\/fail\): row 1 of the chunk: HTTP 500: tool broke$/);
      const sleepy = await failure(await sql('SELECT sleepy(1)'));
      t.is(sleepy.code, 'FUNCTION_CALL_FAILED');
      t.regex(sleepy.message, /sleepy.*(no answer within 300ms|deadline of the whole chunk \(300ms\))/);

      const client = FlightSqlClient.connect({ endpoint: `grpc://${runtime.flightEndpoint}` });
      try {
        const { table } = await client.query('SELECT times_ten(4) AS forty');
        t.deepEqual(table.toArray().map((row) => row.toJSON()), [{ forty: 40n }]);
      } finally {
        client.close();
      }

      const listed = (await (await fetch(`${baseUrl}/v1/functions`)).json()) as Array<{ name: string }>;
      t.deepEqual(listed.find((entry) => entry.name === 'times_ten'), { name: 'times_ten', kind: 'scalar', volatility: 'volatile', from: `${server.url}/tool/echo`, description: 'multiplies by ten, remotely' });
      t.deepEqual(listed.map((entry) => entry.name), ['times_ten', 'greet', 'broken', 'sleepy']);
      const udfs = await (await sql("SELECT name, source FROM list_udfs() WHERE name IN ('times_ten', 'no_signature', 'llm_only')", { accept: 'application/json' })).json();
      t.deepEqual(udfs, [{ name: 'times_ten', source: 'user' }]);

      const warnings = logs.filter((record) => record.level === 'warn').map((record) => record.message);
      t.true(warnings.includes('tool no_signature has as_sql: true but is not a SQL function: it has no signature (args and returns are needed to register a SQL function)'));
      t.true(warnings.includes('tool builtin_kind has as_sql: true but is not a SQL function: from: sql cannot be called from SQL in this release: only http(s):// tools can'));
      t.false(warnings.some((message) => message.includes('llm_only')), 'tools without as_sql are left alone');
    });
  } finally {
    await server.close();
  }
});

test('with runtime.functions.enabled false, as_sql tools warn and stay LLM-only', async (t) => {
  await withRuntime(t, { manifest: manifest('http://127.0.0.1:9', false) }, async ({ sql, logs }) => {
    t.is((await failure(await sql('SELECT times_ten(1)'))).code, 'SQL_INVALID');
    t.true(logs.some((record) => record.message === 'tool times_ten has as_sql: true, but runtime.functions.enabled is false: it stays an LLM tool only'));
  });
});

test('strict checks: a tool signature with a type JSON cannot carry fails loading with its path', async (t) => {
  const text = `tools:
  - name: dated
    from: http://127.0.0.1:9/x
    as_sql: true
    signature: { args: [{ name: d, type: date32 }], returns: int64, extra: 1 }
`;
  const error = await t.throwsAsync(withRuntime(t, { manifest: text }, async () => undefined));
  t.is((error as { code?: string }).code, 'MANIFEST_INVALID');
  t.regex(error!.message, /tools\[0\]\.signature\.args\[0\]\.type: a tool called from SQL takes and returns int64, float64, utf8 or boolean, got date32/);
  t.regex(error!.message, /tools\[0\]\.signature\.extra/);
});

test('a tool named like a declared function stops start-up', async (t) => {
  const text = `runtime:
  functions:
    enabled: true
functions:
  - name: twice
    from: sql
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    body: x * 2
tools:
  - name: twice
    from: http://127.0.0.1:9/x
    as_sql: true
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
`;
  const error = await t.throwsAsync(withRuntime(t, { manifest: text }, async () => undefined));
  t.is((error as { code?: string }).code, 'FUNCTION_REGISTRATION_FAILED');
  t.is(error!.message, 'tools[0] (twice): a function named twice is already declared in functions:; rename one of them');
});
