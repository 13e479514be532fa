import test from 'ava';
import { DEFAULT_ENDPOINTS, parseCommandLine } from '../../cli/quarry/arguments.js';
import { parseEndpoint } from '../../cli/quarry/endpoint.js';
import { UsageError } from '../../cli/quarry/errors.js';
import { parseReplCommand } from '../../cli/quarry/repl/repl-commands.js';

const noEnv = {};

test('sql defaults: local Flight endpoint, REPL, table output, no key', (t) => {
  const parsed = parseCommandLine(['sql'], noEnv);
  if (parsed.command !== 'sql') return t.fail();
  t.like(parsed.connection.endpoint, { protocol: 'flight', tls: false, display: 'grpc://127.0.0.1:50051' });
  t.is(parsed.execute, undefined);
  t.is(parsed.output, 'table');
  t.is(parsed.connection.apiKey, undefined);
});

test('sql -e / --execute and --output, with flags before or after the command', (t) => {
  const short = parseCommandLine(['sql', '-e', 'select 1', '-o', 'json'], noEnv);
  t.like(short, { command: 'sql', execute: 'select 1', output: 'json' });
  const long = parseCommandLine(['--endpoint', 'https://db.example:8443', 'sql', '--execute=select 2', '--output', 'csv'], noEnv);
  t.like(long, { command: 'sql', execute: 'select 2', output: 'csv' });
  if (long.command === 'sql') t.is(long.connection.endpoint.display, 'https://db.example:8443');
});

test('sql talks Flight by default and HTTP when given an http(s):// endpoint; status and refresh default to HTTP', (t) => {
  const endpointOf = (argv: string[]) => {
    const parsed = parseCommandLine(argv, noEnv);
    return 'connection' in parsed ? parsed.connection.endpoint : t.fail('no connection');
  };
  t.like(endpointOf(['sql', '-e', 'select 1']), { protocol: 'flight', display: 'grpc://127.0.0.1:50051' });
  t.like(endpointOf(['sql', '--endpoint', 'http://127.0.0.1:8090']), { protocol: 'http', display: 'http://127.0.0.1:8090' });
  t.like(endpointOf(['sql', '--endpoint', 'https://db.example']), { protocol: 'http', tls: true });
  t.like(endpointOf(['sql', '--endpoint', 'grpc+tls://db.example:50051']), { protocol: 'flight', tls: true, display: 'grpc+tls://db.example:50051' });
  t.like(endpointOf(['status']), { protocol: 'http', display: 'http://127.0.0.1:8090' });
  t.like(endpointOf(['refresh', 'taxi']), { protocol: 'http', display: 'http://127.0.0.1:8090' });
  t.deepEqual(DEFAULT_ENDPOINTS, { sql: 'grpc://127.0.0.1:50051', status: 'http://127.0.0.1:8090', refresh: 'http://127.0.0.1:8090' });
});

test('status and refresh refuse a Flight endpoint with a usage error', (t) => {
  t.throws(() => parseCommandLine(['status', '--endpoint', 'grpc://127.0.0.1:50051'], noEnv), {
    instanceOf: UsageError,
    message: 'quarry status talks to the HTTP API: pass an http:// or https:// --endpoint, or none for http://127.0.0.1:8090 (got grpc://127.0.0.1:50051)',
  });
  t.throws(() => parseCommandLine(['refresh', 'taxi', '--endpoint', 'grpc+tls://db.example:443'], noEnv), { instanceOf: UsageError, message: /^quarry refresh talks to the HTTP API/ });
});

test('the API key comes from --api-key, else QUARRY_API_KEY; empty means none', (t) => {
  t.like(parseCommandLine(['status', '--api-key', 'flag'], { QUARRY_API_KEY: 'env' }), { connection: { apiKey: 'flag' } });
  t.like(parseCommandLine(['status'], { QUARRY_API_KEY: 'env' }), { connection: { apiKey: 'env' } });
  t.like(parseCommandLine(['status'], { QUARRY_API_KEY: '' }), { connection: { apiKey: undefined } });
});

test('--header / -H (repeatable) and QUARRY_HEADERS send any auth scheme\'s credentials; a malformed one is a usage error', (t) => {
  t.like(parseCommandLine(['sql', '-H', 'X-Team-Token: abc', '--header', 'X-Trace:  t-1 '], noEnv), { connection: { headers: { 'x-team-token': 'abc', 'x-trace': 't-1' } } });
  t.like(parseCommandLine(['status', '-H', 'X-Team-Token: flag'], { QUARRY_HEADERS: 'X-Team-Token: env\nX-Other: o\n' }), { connection: { headers: { 'x-team-token': 'flag', 'x-other': 'o' } } });
  t.like(parseCommandLine(['refresh', 'taxi'], { QUARRY_HEADERS: 'Authorization: Token xyz' }), { connection: { headers: { authorization: 'Token xyz' } } });
  t.like(parseCommandLine(['sql'], noEnv), { connection: { headers: {} } });
  t.throws(() => parseCommandLine(['sql', '-H', 'X-Team-Token'], noEnv), { instanceOf: UsageError, message: `--header "X-Team-Token": expected 'Name: value' (from --header or QUARRY_HEADERS, one per line)` });
  t.throws(() => parseCommandLine(['sql', '-H', 'Bad Name: x'], noEnv), { instanceOf: UsageError, message: /^--header "Bad Name: x": expected 'Name: value'/ });
});

test('refresh takes one dataset and validated overrides', (t) => {
  t.like(parseCommandLine(['refresh', 'taxi', '--refresh-mode', 'full', '--refresh-sql', 'SELECT 1'], noEnv), {
    command: 'refresh',
    dataset: 'taxi',
    refreshMode: 'full',
    refreshSql: 'SELECT 1',
  });
  t.throws(() => parseCommandLine(['refresh'], noEnv), { instanceOf: UsageError, message: /needs a dataset name/ });
  t.throws(() => parseCommandLine(['refresh', 'a', 'b'], noEnv), { instanceOf: UsageError, message: /one dataset name, got 2/ });
  t.throws(() => parseCommandLine(['refresh', 'a', '--refresh-mode', 'changes'], noEnv), { instanceOf: UsageError });
});

test('help and version', (t) => {
  t.deepEqual(parseCommandLine([], noEnv), { command: 'help', topic: undefined });
  t.deepEqual(parseCommandLine(['--help'], noEnv), { command: 'help', topic: undefined });
  t.deepEqual(parseCommandLine(['help', 'refresh'], noEnv), { command: 'help', topic: 'refresh' });
  t.deepEqual(parseCommandLine(['sql', '-h'], noEnv), { command: 'help', topic: 'sql' });
  t.deepEqual(parseCommandLine(['--version'], noEnv), { command: 'version' });
});

test('wrong command lines are usage errors naming the problem', (t) => {
  t.throws(() => parseCommandLine(['query'], noEnv), { instanceOf: UsageError, message: /unknown command "query"/ });
  t.throws(() => parseCommandLine(['sql', '--bogus'], noEnv), { instanceOf: UsageError, message: /Unknown option '--bogus'/ });
  t.throws(() => parseCommandLine(['sql', '--endpoint'], noEnv), { instanceOf: UsageError });
  t.throws(() => parseCommandLine(['status', '-e', 'select 1'], noEnv), { instanceOf: UsageError, message: /quarry status does not take --execute/ });
  t.throws(() => parseCommandLine(['sql', 'extra'], noEnv), { instanceOf: UsageError, message: /unexpected argument "extra"/ });
  t.throws(() => parseCommandLine(['sql', '-e', '  '], noEnv), { instanceOf: UsageError });
  t.throws(() => parseCommandLine(['sql', '--tls-root-certificate-file', 'ca.pem'], noEnv), { instanceOf: UsageError, message: /needs an https:\/\// });
});

test('endpoints: schemes pick the protocol, bare host:port means http, path prefixes are kept', (t) => {
  t.like(parseEndpoint('http://127.0.0.1:8090'), { protocol: 'http', tls: false, display: 'http://127.0.0.1:8090' });
  t.like(parseEndpoint('https://db.example'), { protocol: 'http', tls: true, display: 'https://db.example' });
  t.like(parseEndpoint('localhost:9000'), { protocol: 'http', display: 'http://localhost:9000' });
  t.like(parseEndpoint('grpc://127.0.0.1:50051'), { protocol: 'flight', tls: false, display: 'grpc://127.0.0.1:50051' });
  t.like(parseEndpoint('grpc+tls://db.example:443'), { protocol: 'flight', tls: true });
  const prefixed = parseEndpoint('https://proxy.example/quarry');
  t.is(prefixed.display, 'https://proxy.example/quarry');
  t.is(new URL('v1/sql', prefixed.url).href, 'https://proxy.example/quarry/v1/sql');
  t.throws(() => parseEndpoint('ftp://x'), { instanceOf: UsageError, message: /unsupported scheme ftp:/ });
  t.throws(() => parseEndpoint('http://x/?a=1'), { instanceOf: UsageError });
  t.throws(() => parseEndpoint(''), { instanceOf: UsageError });
});

test('Flight endpoints are host and port: default ports, no path, no credentials', (t) => {
  t.is(parseEndpoint('grpc://db.example').display, 'grpc://db.example:50051');
  t.is(parseEndpoint('grpc+tls://db.example').display, 'grpc+tls://db.example:443');
  t.is(parseEndpoint('grpc://[::1]:50051').url.host, '[::1]:50051');
  t.is(parseEndpoint('grpc://127.0.0.1:50051/').display, 'grpc://127.0.0.1:50051');
  t.throws(() => parseEndpoint('grpc://127.0.0.1:50051/quarry'), { instanceOf: UsageError, message: /host:port only, without a path/ });
  t.throws(() => parseEndpoint('grpc://user:secret@127.0.0.1:50051'), { instanceOf: UsageError, message: /use --api-key/ });
  t.throws(() => parseEndpoint('grpc://'), { instanceOf: UsageError, message: /names no host/ });
});

test('REPL commands: no semicolon needed, case and blanks ignored, SQL left alone', (t) => {
  for (const line of ['.exit', 'exit', 'quit', '.quit', 'QUIT;', '  exit  ']) t.deepEqual(parseReplCommand(line), { kind: 'exit' });
  t.deepEqual(parseReplCommand('help'), { kind: 'help' });
  t.deepEqual(parseReplCommand('.error'), { kind: 'last-error' });
  t.deepEqual(parseReplCommand('.clear'), { kind: 'clear-screen' });
  t.deepEqual(parseReplCommand('.clear   history'), { kind: 'clear-history' });
  t.deepEqual(parseReplCommand('SHOW TABLES'), { kind: 'sql', sql: 'SHOW TABLES' });
  t.is(parseReplCommand('select 1;'), undefined);
  t.is(parseReplCommand('exit now'), undefined);
});
