/**
 * `quarry sql` over Arrow Flight SQL against the real runtime: the same statements over
 * HTTP and over Flight must print the same bytes (apart from the timing), and Flight
 * failures must read like their HTTP counterparts.
 */
import test from 'ava';
import { runCommand } from '../helpers/daemon.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';
import { QUICKSTART_MANIFEST, withRuntime, type TestRuntime } from '../helpers/runtime.js';
import { closedPort } from './helpers/closed-port.js';

/** The results cache off, so that repeated statements are answered alike (and not `(cached)`). */
const UNCACHED_MANIFEST = `${QUICKSTART_MANIFEST}
runtime:
  caching:
    sql_results:
      enabled: false
`;
const setup = { manifest: UNCACHED_MANIFEST, withQuickstartData: true, flight: true };

/** A private history folder and no key from the developer's environment. */
function quarry(args: string[], input = '') {
  const env = { QUARRY_HOME: temporaryDirectory('quarry-flight-home-'), QUARRY_API_KEY: '', NO_COLOR: '1' };
  return runCommand('quarry', args, { env, input });
}

const flightOf = (runtime: TestRuntime) => `grpc://${runtime.runtime.flightEndpoint}`;
/** The footer's timing differs from run to run; everything else must not. */
const withoutTiming = (text: string) => text.replace(/Time: \d+\.\d{4} seconds\./g, 'Time: T seconds.');

const TYPES_SQL = `SELECT 9007199254740993::BIGINT AS big, 'a,b "q"' AS text, NULL::INTEGER AS nothing,
  12.34::DECIMAL(12,2) AS price, 1.5::DOUBLE AS ratio, true AS flag,
  TIMESTAMP '2024-01-02 03:04:05.123456' AS ts, TIMESTAMPTZ '2024-01-02 03:04:05+00' AS tstz, DATE '2024-07-01' AS day,
  INTERVAL '1 year 2 days 3 hours' AS span, '\\xAA\\x00'::BLOB AS bytes, '山田' AS wide,
  [1, 2] AS list, {'a': 1, 'b': 'x'} AS struct, MAP {'k': 1} AS map,
  'b0e5f8b4-1111-4c1b-9d3c-222222222222'::UUID AS id`;
const ORDERS_SQL = 'SELECT status, count(*) AS orders, sum(quantity * unit_price) AS total FROM orders GROUP BY status ORDER BY status';
/** Over 256 KiB of JSON, so the encoders yield several chunks and Flight several batches. */
const LARGE_SQL = "SELECT i, 'row ' || i AS label, i * 0.5 AS half FROM range(120000) t(i) ORDER BY i";

/** Each statement with the outputs compared for it: every format for the typed and the large result. */
const COMPARED: Array<[string, Array<'table' | 'json' | 'csv'>]> = [
  [TYPES_SQL, ['table', 'json', 'csv']],
  [LARGE_SQL, ['table', 'json', 'csv']],
  [ORDERS_SQL, ['table', 'json']],
  ['SELECT * FROM orders WHERE false', ['table', 'json', 'csv']],
  ['select 1 as a; select 2 as b', ['table']],
];

test('sql -e prints the same table, JSON and CSV over Flight as over HTTP', async (t) => {
  await withRuntime(t, setup, async (runtime) => {
    const overFlight = new Map<string, string>();
    for (const [sql, outputs] of COMPARED) {
      // The client processes of one statement run side by side: start-up dominates the test's time.
      await Promise.all(
        outputs.map(async (output) => {
          const [http, flight] = await Promise.all([
            quarry(['sql', '--endpoint', runtime.baseUrl, '-e', sql, '-o', output]),
            quarry(['sql', '--endpoint', flightOf(runtime), '-e', sql, '-o', output]),
          ]);
          t.is(flight.code, 0, flight.stderr);
          t.is(http.code, 0, http.stderr);
          t.is(flight.stderr, '');
          t.is(withoutTiming(flight.stdout), withoutTiming(http.stdout), `${output}: ${sql.slice(0, 40)}`);
          overFlight.set(`${output} ${sql}`, flight.stdout);
        }),
      );
    }
    const table = overFlight.get(`table ${TYPES_SQL}`) ?? '';
    t.regex(table, /│\s+big │ text\s+│/);
    t.true(table.includes('9007199254740993'), 'bigint beyond 2^53 stays exact');
    t.true(table.includes('2024-01-02 03:04:05.123456'), 'microseconds kept');
    t.regex(table, /Time: \d+\.\d{4} seconds\. 1 row\.\n$/);
    t.regex(overFlight.get(`table ${LARGE_SQL}`) ?? '', /500\/120000 rows displayed\.\n$/);
    t.like(JSON.parse(overFlight.get(`json ${ORDERS_SQL}`) ?? ''), [{ status: 'cancelled', orders: 121 }]);
    t.is(overFlight.get('csv SELECT * FROM orders WHERE false')?.split('\r\n')[1], '', 'an empty result is the CSV header alone');
    t.is(overFlight.get('json SELECT * FROM orders WHERE false'), '[]\n');
  });
});

test('the REPL runs over Flight from stdin, with the same transcript as over HTTP', async (t) => {
  await withRuntime(t, setup, async (runtime) => {
    const input = 'SELECT count(*) AS customers\nFROM customers;\nshow tables\nselect 1 as a; select 2 as b;\nselect * from nowhere;\n.exit\n';
    const overFlight = await quarry(['sql', '--endpoint', flightOf(runtime)], input);
    const overHttp = await quarry(['sql', '--endpoint', runtime.baseUrl], input);
    t.is(overFlight.code, 1, 'piped input with a failed statement exits 1');
    t.is(overFlight.stderr, '');
    t.regex(overFlight.stdout, /│\s+500 │/);
    t.regex(overFlight.stdout, /│ orders\s+│/);
    t.true(overFlight.stdout.includes('sql> Query Error: [TABLE_NOT_FOUND] table "nowhere" does not exist'));
    t.is(withoutTiming(overFlight.stdout), withoutTiming(overHttp.stdout));

    const details = await quarry(['sql', '--endpoint', flightOf(runtime)], 'selec 1;\n.error\n');
    t.true(details.stdout.includes('Status: gRPC INVALID_ARGUMENT\nCode: SQL_INVALID\nMessage: Parser Error: syntax error at or near "selec"'), details.stdout);
    t.true(details.stdout.includes('Statement: selec 1\n'));
  });
});

test('engine errors print Query Error: [CODE] message and exit 1', async (t) => {
  await withRuntime(t, setup, async (runtime) => {
    const cases: Array<[string, RegExp]> = [
      ['SELECT * FROM nowhere', /^Query Error: \[TABLE_NOT_FOUND\] table "nowhere" does not exist/],
      ['selec 1', /^Query Error: \[SQL_INVALID\] Parser Error: syntax error at or near "selec"/],
      ["SELECT 'a'::INTEGER", /^Query Error: \[QUERY_FAILED\] Conversion Error/],
      ["SELECT * FROM read_csv('/etc/passwd')", /^Query Error: \[ACCESS_DENIED\] Permission Error/],
      ['INSERT INTO orders SELECT * FROM orders LIMIT 0', /^Query Error: \[WRITE_NOT_ALLOWED\] INSERT refused/],
    ];
    for (const [sql, expected] of cases) {
      const result = await quarry(['sql', '--endpoint', flightOf(runtime), '-e', sql]);
      t.is(result.code, 1, sql);
      t.is(result.stdout, '');
      t.regex(result.stderr, expected);
    }
    const stopsAtFailure = await quarry(['sql', '--endpoint', flightOf(runtime), '-e', 'select 1 as a; select * from nowhere; select 3 as c']);
    t.is(stopsAtFailure.code, 1);
    t.regex(stopsAtFailure.stdout, /│\s+a │/);
    t.notRegex(stopsAtFailure.stdout, /│\s+c │/);
  });
});

test('an endpoint where no runtime listens is reported as unavailable; wrong ports and TLS say so', async (t) => {
  const port = await closedPort();
  const refused = await quarry(['sql', '--endpoint', `grpc://127.0.0.1:${port}`, '-e', 'SELECT 1']);
  t.is(refused.code, 1);
  t.is(refused.stderr, `Error: runtime unavailable at grpc://127.0.0.1:${port} (Arrow Flight SQL): is quarryd running?\n`);
  const repl = await quarry(['sql', '--endpoint', `grpc://127.0.0.1:${port}`], 'select 1;\nselect 2;\n');
  t.is(repl.stdout.split(`Error: runtime unavailable at grpc://127.0.0.1:${port} (Arrow Flight SQL): is quarryd running?\n`).length - 1, 2, 'the REPL carries on');

  await withRuntime(t, setup, async (runtime) => {
    const httpPort = await quarry(['sql', '--endpoint', `grpc://${runtime.runtime.httpEndpoint}`, '-e', 'SELECT 1']);
    t.is(httpPort.code, 1);
    t.regex(httpPort.stderr, /^Error: Flight connection to grpc:\/\/127\.0\.0\.1:\d+ failed: .*not its HTTP port\?\)\n$/);
    const tlsToPlaintext = await quarry(['sql', '--endpoint', `grpc+tls://${runtime.runtime.flightEndpoint}`, '-e', 'SELECT 1']);
    t.is(tlsToPlaintext.code, 1);
    t.regex(tlsToPlaintext.stderr, /^Error: TLS connection to grpc\+tls:\/\/127\.0\.0\.1:\d+ failed: the listener does not speak TLS/);
    t.notRegex(tlsToPlaintext.stderr, /DeprecationWarning/, 'no Node warning about IP server names');
  });
});

test('status and refresh refuse a grpc:// endpoint with a usage error', async (t) => {
  const status = await quarry(['status', '--endpoint', 'grpc://127.0.0.1:50051']);
  t.is(status.code, 2);
  t.is(status.stderr, "Error: quarry status talks to the HTTP API: pass an http:// or https:// --endpoint, or none for http://127.0.0.1:8090 (got grpc://127.0.0.1:50051)\nRun 'quarry --help' for usage.\n");
  const refresh = await quarry(['refresh', 'orders', '--endpoint', 'grpc+tls://127.0.0.1:50051']);
  t.is(refresh.code, 2);
  t.regex(refresh.stderr, /^Error: quarry refresh talks to the HTTP API/);
});
