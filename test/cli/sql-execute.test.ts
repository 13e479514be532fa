/**
 * `quarry sql -e` end to end against a fake runtime started in the test. The fake stands
 * in for quarryd only until the end-to-end tests run the client against the real runtime.
 */
import { createServer } from 'node:net';
import test from 'ava';
import { parseCommandLine } from '../../cli/quarry/arguments.js';
import { runQuarry } from './helpers/cli-process.js';
import { closedPort } from './helpers/closed-port.js';
import { FakeRuntime } from './helpers/fake-runtime.js';

async function withRuntime<T>(run: (runtime: FakeRuntime) => Promise<T>, options = {}): Promise<T> {
  const runtime = await FakeRuntime.start(options);
  try {
    return await run(runtime);
  } finally {
    await runtime.close();
  }
}

test('prints a box table with column names, types, values and the timing footer', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select * from people']);
    t.is(result.code, 0, result.stderr);
    t.is(result.stderr, '');
    const lines = result.stdout.split('\n');
    t.regex(lines[0]!, /^┌─+┬/);
    t.regex(lines[1]!, /│\s+id │ name\s+│\s+score │ joined\s+│ tags\s+│ active\s+│/);
    t.regex(lines[2]!, /│\s+bigint │ varchar\s+│ decimal\(12,2\) │ timestamp\s+│ list<varchar> │ boolean │/);
    t.true(result.stdout.includes('9007199254740993'), 'bigint beyond 2^53 stays exact');
    t.true(result.stdout.includes('2024-01-02 03:04:05.123456'), 'microseconds kept');
    t.true(result.stdout.includes("['a', 'b']"));
    t.true(result.stdout.includes('│ NULL'));
    t.true(result.stdout.includes('-1.00'));
    t.regex(result.stdout, /└─+┴.*┘\n\nTime: \d+\.\d{4} seconds\. 3 rows\.\n$/s);
  });
});

test('sends the statement as text without its trailing semicolon and asks for Arrow', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '--execute', 'select 1 as one;']);
    t.is(result.code, 0, result.stderr);
    const request = runtime.requests.find((candidate) => candidate.path === '/v1/sql')!;
    t.is(request.body, 'select 1 as one');
    t.is(request.headers['accept'], 'application/vnd.apache.arrow.stream');
    t.regex(String(request.headers['content-type']), /^text\/plain/);
    t.regex(String(request.headers['user-agent']), /^quarry\//);
    t.is(request.headers['x-api-key'], undefined);
  });
});

test('shows at most 500 rows and says how many there were', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select * from numbers']);
    t.is(result.code, 0, result.stderr);
    const bodyRows = result.stdout.split('\n').filter((line) => /^│\s+\d+ │$/.test(line));
    t.is(bodyRows.length, 500);
    t.regex(result.stdout, /Time: \d+\.\d{4} seconds\. 500\/1234 rows displayed\.\n$/);
  });
});

test('an empty result prints No results.', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select * from empty']);
    t.is(result.code, 0, result.stderr);
    t.regex(result.stdout, /^No results\.\n\nTime: \d+\.\d{4} seconds\. 0 rows\.\n$/);
  });
});

test('marks results served from the runtime cache', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select * from cached']);
    t.regex(result.stdout, /1 row\. \(cached\)\n$/);
  });
});

test('--output json and csv print the runtime encoding as it was sent', async (t) => {
  await withRuntime(async (runtime) => {
    const json = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select 1 as one', '--output', 'json']);
    t.is(json.code, 0, json.stderr);
    t.is(json.stdout, '[{"one":1}]\n');
    const csv = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'show tables', '-o', 'csv']);
    t.is(csv.stdout, 'name\npeople\nnumbers\n');
    const accepts = runtime.requests.map((request) => request.headers['accept']);
    t.deepEqual(accepts, ['application/json', 'text/csv']);
  });
});

test('a query error exits 1 with the code and message on stderr', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'selec 1']);
    t.is(result.code, 1);
    t.is(result.stdout, '');
    t.is(result.stderr, 'Query Error: [SQL_INVALID] Parser Error: syntax error at or near "selec"\n');
  });
});

test('a 403 shows the runtime message', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select * from secrets']);
    t.is(result.code, 1);
    t.is(result.stderr, 'Query Error: [ACCESS_DENIED] Access denied: reading files is not allowed\n');
  });
});

test('several statements run in order and stop at the first failure', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', "select 'a;b' as text; select * from missing; select 1 as one"]);
    t.is(result.code, 1);
    t.deepEqual(runtime.sqlReceived, ["select 'a;b' as text", 'select * from missing']);
    t.true(result.stdout.includes('a;b'));
    t.is(result.stderr, 'Query Error: [TABLE_NOT_FOUND] Table "missing" does not exist\n');
  });
});

test('a stopped runtime reads as unavailable, not as a query error', async (t) => {
  const port = await closedPort();
  const result = await runQuarry(['sql', '--endpoint', `http://127.0.0.1:${port}`, '-e', 'select 1']);
  t.is(result.code, 1);
  t.is(result.stderr, `Error: runtime unavailable at http://127.0.0.1:${port} (HTTP API): is quarryd running?\n`);
});

test('a 401 says to check the API key, never that the runtime is unavailable', async (t) => {
  await withRuntime(
    async (runtime) => {
      const missing = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select 1 as one']);
      t.is(missing.code, 1);
      t.is(missing.stderr, 'Error: unauthorized: check --api-key (or QUARRY_API_KEY)\n');
      const wrong = await runQuarry(['sql', '--endpoint', runtime.endpoint, '--api-key', 'nope', '-e', 'select 1 as one']);
      t.is(wrong.stderr, 'Error: unauthorized: check --api-key (or QUARRY_API_KEY)\n');
      const flag = await runQuarry(['sql', '--endpoint', runtime.endpoint, '--api-key', 's3cret', '-e', 'select 1 as one']);
      t.is(flag.code, 0, flag.stderr);
      const fromEnvironment = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select 1 as one'], { env: { QUARRY_API_KEY: 's3cret' } });
      t.is(fromEnvironment.code, 0, fromEnvironment.stderr);
      t.is(runtime.requests.at(-1)!.headers['x-api-key'], 's3cret');
    },
    { apiKey: 's3cret' },
  );
});

test('an http:// endpoint switches quarry sql from Flight to the HTTP API', async (t) => {
  await withRuntime(async (runtime) => {
    const result = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-e', 'select 1 as one']);
    t.is(result.code, 0, result.stderr);
    t.truthy(runtime.requests.find((request) => request.path === '/v1/sql'), 'the query went to POST /v1/sql');
  });
});

test('usage errors exit 2', async (t) => {
  const badOutput = await runQuarry(['sql', '-e', 'select 1', '--output', 'xml']);
  t.is(badOutput.code, 2);
  t.regex(badOutput.stderr, /--output "xml" is not one of table, json, csv/);
  const commentOnly = await runQuarry(['sql', '-e', '-- nothing']);
  t.is(commentOnly.code, 2);
  const unknownFlag = await runQuarry(['sql', '--nope']);
  t.is(unknownFlag.code, 2);
  t.regex(unknownFlag.stderr, /Unknown option '--nope'/);
});

test('several statements with -o json print one JSON document, an array of their results; -o ndjson a line per row', async (t) => {
  await withRuntime(async (runtime) => {
    const json = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-o', 'json', '-e', 'select 1 as one; select * from people; select 2 as two']);
    t.is(json.code, 0, json.stderr);
    const document = JSON.parse(json.stdout) as unknown[];
    t.is(document.length, 3);
    t.deepEqual(document[0], [{ one: 1 }]);
    t.deepEqual(document[2], [{ two: 2 }]);
    // One statement stays one array of rows, as before.
    const single = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-o', 'json', '-e', 'select 1 as one']);
    t.is(single.stdout, '[{"one":1}]\n');
    // A failure: the results before it, closed as an array; the error on stderr, exit 1.
    const failed = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-o', 'json', '-e', 'select 1 as one; select * from missing']);
    t.is(failed.code, 1);
    t.deepEqual(JSON.parse(failed.stdout), [[{ one: 1 }]]);
    t.regex(failed.stderr, /TABLE_NOT_FOUND/);

    const ndjson = await runQuarry(['sql', '--endpoint', runtime.endpoint, '-o', 'ndjson', '-e', 'select 1 as one; select 2 as two; select * from empty']);
    t.is(ndjson.code, 0, ndjson.stderr);
    t.is(ndjson.stdout, '{"one":1}\n{"two":2}\n');
  });
});

test('an endpoint without a scheme takes its port\'s (50051: Flight, 8090: HTTP), else the command\'s default', async (t) => {
  await withRuntime(async (runtime) => {
    const port = runtime.endpoint.replace(/^http:\/\//, '');
    // Not a known port: quarry sql's default is Flight, which the fake (HTTP) runtime does not speak.
    const flight = await runQuarry(['sql', '--endpoint', port, '-e', 'select 1 as one']);
    t.is(flight.code, 1);
    t.regex(flight.stderr, new RegExp(`grpc://${port.replace(/\./g, '\\.')}`), 'the error names the endpoint as it was read');
    const status = await runQuarry(['status', '--endpoint', port]);
    t.is(status.code, 0, status.stderr);
  });
  // quarryd's own ports pick their protocol whatever the command's default.
  const env = {};
  t.is((parseCommandLine(['sql', '--endpoint', '127.0.0.1:50051'], env) as { connection: { endpoint: { display: string } } }).connection.endpoint.display, 'grpc://127.0.0.1:50051');
  t.is((parseCommandLine(['sql', '--endpoint', 'localhost:8090'], env) as { connection: { endpoint: { display: string } } }).connection.endpoint.display, 'http://localhost:8090');
  t.is((parseCommandLine(['status', '--endpoint', 'quarry.example.com:443'], env) as { connection: { endpoint: { display: string } } }).connection.endpoint.display, 'https://quarry.example.com');
});

test('HTTP to a port that does not speak HTTP/1.1 (quarryd\'s Flight port) says so and names grpc://', async (t) => {
  const server = await new Promise<import('node:net').Server>((resolve) => {
    const listening = createServer((socket) => socket.end('\u0000\u0000\u0012\u0004\u0000\u0000\u0000\u0000\u0000garbage'));
    listening.listen(0, '127.0.0.1', () => resolve(listening));
  });
  try {
    const port = (server.address() as import('node:net').AddressInfo).port;
    const result = await runQuarry(['sql', '--endpoint', `http://127.0.0.1:${port}`, '-e', 'select 1']);
    t.is(result.code, 1);
    t.regex(result.stderr, new RegExp(`request to http://127\\.0\\.0\\.1:${port} \\(HTTP API\\) failed: .*the server there does not speak HTTP/1\\.1: if it is quarryd's Flight SQL port, use grpc://127\\.0\\.0\\.1:${port}`));
  } finally {
    server.close();
  }
});
