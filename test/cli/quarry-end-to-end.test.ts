import test from 'ava';
import { QUICKSTART_MANIFEST, withRuntime } from '../helpers/runtime.js';
import { runCommand } from '../helpers/daemon.js';

// The client against the real runtime (the other client tests use a stand-in server).
const setup = { manifest: QUICKSTART_MANIFEST, withQuickstartData: true };

test('quarry sql -e prints a typed table, json and csv from a real runtime', async (t) => {
  await withRuntime(t, setup, async ({ baseUrl }) => {
    const sql = "SELECT status, count(*) AS orders FROM orders WHERE status IN ('paid', 'pending') GROUP BY status ORDER BY status";
    const table = await runCommand('quarry', ['sql', '-e', sql, '--endpoint', baseUrl]);
    t.is(table.code, 0, table.stderr);
    t.regex(table.stdout, /│ status\s+│ orders\s+│/);
    t.regex(table.stdout, /│ varchar\s+│ bigint\s+│/);
    t.regex(table.stdout, /│ paid\s+│\s+143 │/);
    t.regex(table.stdout, /Time: \d+\.\d+ seconds\. 2 rows\./);
    const json = await runCommand('quarry', ['sql', '-e', sql, '--endpoint', baseUrl, '--output', 'json']);
    t.deepEqual(JSON.parse(json.stdout), [{ status: 'paid', orders: 143 }, { status: 'pending', orders: 103 }]);
    const csv = await runCommand('quarry', ['sql', '-e', sql, '--endpoint', baseUrl, '--output', 'csv']);
    t.is(csv.stdout.replaceAll('\r\n', '\n').trim(), 'status,orders\npaid,143\npending,103');
  });
});

test('quarry sql reports engine errors with their code and exits 1', async (t) => {
  await withRuntime(t, setup, async ({ baseUrl }) => {
    const result = await runCommand('quarry', ['sql', '-e', 'SELECT * FROM nowhere', '--endpoint', baseUrl]);
    t.is(result.code, 1);
    t.regex(result.stdout + result.stderr, /TABLE_NOT_FOUND/);
    t.regex(result.stdout + result.stderr, /table "nowhere" does not exist/);
  });
});

test('a query failing after its result started streaming: quarry prints the engine\'s message and exits 1, over HTTP and Flight', async (t) => {
  await withRuntime(t, { ...setup, flight: true }, async ({ baseUrl, runtime }) => {
    const sql = "SELECT CASE WHEN i = 5000000 THEN error('boom late') ELSE i END AS v FROM range(10000000) t(i)";
    for (const endpoint of [baseUrl, `grpc://${runtime.flightEndpoint}`]) {
      for (const output of ['json', 'csv']) {
        const result = await runCommand('quarry', ['sql', '-e', sql, '--endpoint', endpoint, '--output', output]);
        t.is(result.code, 1, `${endpoint} ${output}`);
        t.regex(result.stderr, /QUERY_FAILED\] (Invalid Input Error: boom late|Engine Error: .*nothing cancelled it)/, `${endpoint} ${output}`);
      }
    }
  });
});

test('the REPL runs multi-line statements from stdin against a real runtime', async (t) => {
  await withRuntime(t, setup, async ({ baseUrl }) => {
    const result = await runCommand('quarry', ['sql', '--endpoint', baseUrl], {
      input: 'SELECT count(*) AS customers\nFROM customers;\nshow tables;\n.exit\n',
      env: { QUARRY_HOME: `/tmp/quarry-home-${process.pid}` },
    });
    t.is(result.code, 0, result.stderr);
    t.regex(result.stdout, /│\s+500 │/);
    t.regex(result.stdout, /orders/);
  });
});

test('quarry status and quarry refresh talk to the real runtime', async (t) => {
  await withRuntime(t, setup, async ({ baseUrl }) => {
    const status = await runCommand('quarry', ['status', '--endpoint', baseUrl]);
    t.is(status.code, 0, status.stderr);
    t.regex(status.stdout, /http\s+127\.0\.0\.1:\d+\s+Ready/);
    const refresh = await runCommand('quarry', ['refresh', 'orders', '--endpoint', baseUrl]);
    t.is(refresh.code, 0, refresh.stderr);
    t.regex(refresh.stdout, /Refreshing dataset orders/);
    t.regex(refresh.stdout, /Dataset orders refreshed\./);
    const missing = await runCommand('quarry', ['refresh', 'nope', '--endpoint', baseUrl]);
    t.is(missing.code, 1);
    t.regex(missing.stdout + missing.stderr, /dataset "nope" does not exist/);
  });
});

test('a runtime that is not running is reported as unavailable', async (t) => {
  const result = await runCommand('quarry', ['sql', '-e', 'SELECT 1', '--endpoint', 'http://127.0.0.1:9']);
  t.is(result.code, 1);
  t.regex(result.stderr, /runtime unavailable at http:\/\/127\.0\.0\.1:9/);
});
