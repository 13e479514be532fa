import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';
import { startRemoteServer } from './remote-server.js';

function manifest(url: string): string {
  return `runtime:
  functions:
    enabled: true
functions:
  - name: double_it
    from: ${url}/double
    volatility: immutable
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    params: { batch_size: 100, batch_concurrency: 3, auth_bearer: token-1, allowed_endpoint_ranges: [127.0.0.0/8] }
  - name: short_answer
    from: ${url}/short
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
  - name: slow_answer
    from: ${url}/slow
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    params: { timeout: 300ms }
  - name: big_answer
    from: ${url}/big
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    params: { max_response_bytes: 1KiB }
`;
}

async function errorText(response: Response): Promise<string> {
  return `${response.status} ${await response.text()}`;
}

test('remote functions: batched POSTs, errors for wrong counts, timeouts and large answers', async (t) => {
  const server = await startRemoteServer();
  try {
    await withRuntime(t, { manifest: manifest(server.url), flight: true }, async ({ runtime, sql, baseUrl }) => {
      const answer = await sql('SELECT sum(double_it(range)) AS total, count(*) AS n FROM range(250)', { accept: 'application/json' });
      t.deepEqual(await answer.json(), [{ total: 62250, n: 250 }]);
      const calls = await server.log();
      t.deepEqual(calls.map((call) => call.rows), [100, 100, 50], 'one chunk of 250 rows sent as batches of batch_size');
      t.true(calls.every((call) => call.path === '/double' && call.authorization === 'Bearer token-1'));

      const { FlightSqlClient } = await import('../../core/flight/client/flight-sql-client.js');
      const client = FlightSqlClient.connect({ endpoint: `grpc://${runtime.flightEndpoint}` });
      try {
        const { table } = await client.query('SELECT double_it(21) AS x');
        t.deepEqual(table.toArray().map((row) => row.toJSON()), [{ x: 42n }]);
      } finally {
        client.close();
      }

      const short = await errorText(await sql('SELECT short_answer(range) FROM range(3)'));
      t.regex(short, /^502 \{"error":\{"code":"FUNCTION_CALL_FAILED","message":"function short_answer .*expected 3 values, got 2/);
      t.regex(await errorText(await sql('SELECT slow_answer(1)')), /slow_answer.*no answer within 300ms/);
      t.regex(await errorText(await sql('SELECT big_answer(1)')), /big_answer.*larger than max_response_bytes \(1024 bytes\)/);

      const listed = (await (await fetch(`${baseUrl}/v1/functions`)).json()) as Array<{ name: string; volatility: string; from: string }>;
      t.deepEqual(listed[0], { name: 'double_it', kind: 'scalar', volatility: 'stable', from: `${server.url}/double` }, 'remote volatility capped to stable');
    });
  } finally {
    await server.close();
  }
});

test('an endpoint outside allowed_endpoint_ranges stops start-up', async (t) => {
  const text = `runtime:
  functions:
    enabled: true
functions:
  - name: outside
    from: http://127.0.0.1:9/x
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    params: { allowed_endpoint_ranges: 10.0.0.0/8 }
`;
  const error = await t.throwsAsync(withRuntime(t, { manifest: text }, async () => undefined));
  t.is((error as { code?: string }).code, 'FUNCTION_REGISTRATION_FAILED');
  t.is(error?.message, 'functions[0] (outside): endpoint http://127.0.0.1:9/x is outside params.allowed_endpoint_ranges (10.0.0.0/8)');
});

/** Resolves once the fake endpoint holds `count` POSTs (each check is a round trip to it). */
async function untilHeld(server: Awaited<ReturnType<typeof startRemoteServer>>, count: number): Promise<void> {
  while ((await server.held()) < count) await new Promise((resolve) => setImmediate(resolve));
}

const heldManifest = (url: string) => `runtime:
  shutdown_timeout: 1s
  functions:
    enabled: true
functions:
  - name: held_answer
    from: ${url}/held
    signature: { args: [{ name: x, type: int64 }], returns: int64 }
    params: { timeout: 60s }
`;

test('a remote call being waited on leaves the runtime free: other queries answer, then the call completes', async (t) => {
  const server = await startRemoteServer();
  try {
    await withRuntime(t, { manifest: heldManifest(server.url), flight: true }, async ({ sql, baseUrl }) => {
      const waiting = sql('SELECT held_answer(1) AS x', { accept: 'application/json' });
      await untilHeld(server, 1);
      // Answered by this very process while its remote call is out (a blocked event loop
      // could answer neither before the call's 60 s timeout).
      t.deepEqual(await (await sql('SELECT 42 AS x', { accept: 'application/json' })).json(), [{ x: 42 }]);
      t.is((await fetch(`${baseUrl}/health`)).status, 200);
      t.is(await server.held(), 1, 'the remote call is still out');
      t.is(await server.release(), 1);
      const answer = await waiting;
      t.is(answer.status, 200);
      t.deepEqual(await answer.json(), [{ x: 2 }], 'the held call completes with the endpoint\'s value');
    });
  } finally {
    await server.close();
  }
});

test('shutdown with a remote call out: the call fails with a coded error and the runtime stops', async (t) => {
  const server = await startRemoteServer();
  try {
    let waiting: Promise<Response> | undefined;
    await withRuntime(t, { manifest: heldManifest(server.url) }, async ({ sql }) => {
      waiting = sql('SELECT held_answer(range) AS x FROM range(3)', { accept: 'application/json' });
      await untilHeld(server, 1);
    });
    // withRuntime stopped the runtime: shutdown_timeout (1 s) passed, plugins stopped, and the
    // call still out was failed rather than waited for (its own timeout is 60 s).
    const answer = await waiting!;
    t.not(answer.status, 200);
    t.regex(await answer.text(), /"code":"(FUNCTION_CALL_FAILED|QUERY_CANCELLED|SHUTTING_DOWN)"/);
    t.is(await server.held(), 1, 'the endpoint never answered');
  } finally {
    await server.close();
  }
});
