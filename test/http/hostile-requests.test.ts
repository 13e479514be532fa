import net from 'node:net';
import test from 'ava';
import { withRuntime, type TestRuntime } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from '../access/access-fixtures.js';

/**
 * Requests shaped to break a server, sent over raw sockets (no HTTP client would send them):
 * each gets the runtime's error shape with a stable code, and the runtime answers normally
 * afterwards.
 */

const setup = { manifest: accessManifest(), files: ACCESS_FILES };

/** Writes `payload` on a fresh connection and reads until the server closes it or `responses` answers arrived. */
function exchange(context: TestRuntime, payload: string, responses: number): Promise<string> {
  const [host, port] = context.runtime.httpEndpoint.split(':');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), host, () => socket.write(payload));
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      if ((received.match(/HTTP\/1\.1 /g) ?? []).length >= responses && /\r\n\r\n[\s\S]*\}\s*\]?\s*$/.test(received)) socket.end();
    });
    socket.on('end', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

function sqlRequest(sql: string, extraHeaders = ''): string {
  return `POST /v1/sql HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${KEYS.reader}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(sql)}\r\n${extraHeaders}\r\n${sql}`;
}

async function stillAnswers(t: import('ava').ExecutionContext, context: TestRuntime): Promise<void> {
  const response = await context.sql('SELECT 42 AS answer', { headers: { 'x-api-key': KEYS.reader } });
  t.deepEqual(await response.json(), [{ answer: 42 }], 'the runtime still answers');
}

test('pipelined queries on one connection are all answered, in order, none cancelled', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const payload = [1, 2, 3].map((value) => sqlRequest(`SELECT ${value} AS v, count(*) AS n FROM range(200000)`)).join('');
    const received = await exchange(context, payload, 3);
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d+)/g)].map((match) => Number(match[1]));
    t.deepEqual(statuses, [200, 200, 200], received.slice(0, 2000));
    const values = [...received.matchAll(/"v":(\d+)/g)].map((match) => Number(match[1]));
    t.deepEqual(values, [1, 2, 3], 'answered in the order asked');
    await stillAnswers(t, context);
  });
});

test('a URL that is not valid percent-encoding and headers over 16 KiB get the runtime\'s error shape', async (t) => {
  await withRuntime(t, setup, async (context) => {
    for (const url of ['/%', '/v1/datasets/%ZZ']) {
      const received = await exchange(context, `GET ${url} HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${KEYS.reader}\r\nConnection: close\r\n\r\n`, 1);
      t.regex(received, /^HTTP\/1\.1 400 /, url);
      t.regex(received, /\{"error":\{"code":"REQUEST_INVALID","message":"[^"]*not a valid url component[^"]*"\}\}/, url);
    }
    const huge = await exchange(context, sqlRequest('SELECT 1', `X-Big: ${'a'.repeat(20_000)}\r\n`), 1);
    t.regex(huge, /^HTTP\/1\.1 431 /);
    t.regex(huge, /\{"error":\{"code":"HEADERS_TOO_LARGE","message":"[^"]+"\}\}/);
    const garbage = await exchange(context, 'NOT HTTP AT ALL\r\n\r\n', 1);
    t.regex(garbage, /^HTTP\/1\.1 400 /);
    t.regex(garbage, /"code":"REQUEST_INVALID"/);
    await stillAnswers(t, context);
  });
});

test('deeply nested JSON is refused with 400 before anything walks it', async (t) => {
  await withRuntime(t, setup, async (context) => {
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    const cases: Array<[string, string, string]> = [
      ['/v1/sql', JSON.stringify({ sql: 'SELECT $1' }).replace('}', `,"parameters":[${deep}]}`), 'BODY_INVALID_JSON'],
      ['/v1/datasets/events/acceleration/refresh', `{"refresh_sql":${deep}}`, 'BODY_INVALID_JSON'],
    ];
    for (const [route, body, code] of cases) {
      const response = await fetch(`${context.baseUrl}${route}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-api-key': KEYS.writer } });
      t.is(response.status, 400, route);
      const answer = (await response.json()) as { error: { code: string; message: string } };
      t.is(answer.error.code, code, route);
      t.regex(answer.error.message, /deeper than 64 levels/, route);
    }
    const mcp = await fetch(`${context.baseUrl}/v1/mcp`, { method: 'POST', body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${deep.replace('1', '{}')}}`, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': KEYS.reader } });
    t.true(mcp.status === 400, `MCP answered ${mcp.status}`);
    t.regex(await mcp.text(), /deeper than 64 levels/);
    await stillAnswers(t, context);
  });
});

test('statements beyond the planning limits are refused before the engine plans them; the engine\'s own limits keep their message without a SET hint', async (t) => {
  await withRuntime(t, { ...setup, flight: true }, async (context) => {
    const union = (branches: number) => Array.from({ length: branches }, () => 'SELECT 1').join(' UNION ALL ');
    const cases: Array<[string, RegExp]> = [
      // 20,000 branches took DuckDB 124 s and ~7 GB to plan, uninterruptibly.
      [union(20_000), /combines 20000 queries with UNION\/INTERSECT\/EXCEPT; at most 4097/],
      [`SELECT 1 ${'/*'.repeat(10_000)}${'*/'.repeat(10_000)}`, /nests comments 10000 deep/],
    ];
    for (const [sql, message] of cases) {
      const response = await context.sql(sql, { headers: { 'x-api-key': KEYS.reader } });
      const answer = (await response.json()) as { error: { code: string; message: string } };
      t.is(response.status, 400);
      t.is(answer.error.code, 'SQL_TOO_COMPLEX');
      t.regex(answer.error.message, message);
    }
    // Nothing went on planning it in the background (the results cache keys by plan and starts a new text's plan early).
    // (The runtime's own writes, such as task history, may hold a connection for a moment: wait for none; a plan would hold it for minutes.)
    const deadline = Date.now() + 15_000;
    while (context.runtime.engine.activeQueries > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    t.is(context.runtime.engine.activeQueries, 0, 'no engine connection is still busy with a refused statement');
    const allowed = await context.sql(`SELECT count(*) AS n FROM (${union(4_000)})`, { headers: { 'x-api-key': KEYS.reader } });
    t.deepEqual(await allowed.json(), [{ n: 4000 }], 'below the limit the engine plans it');
    const deep = await context.sql(`SELECT ${'('.repeat(100_000)}1${')'.repeat(100_000)}`, { headers: { 'x-api-key': KEYS.reader } });
    const deepAnswer = (await deep.json()) as { error: { code: string; message: string } };
    t.is(deepAnswer.error.code, 'SQL_INVALID');
    t.notRegex(deepAnswer.error.message, /SET max_expression_depth/);
    await stillAnswers(t, context);
  });
});

test('SQL longer than runtime.query.max_sql_length is refused before anything else', async (t) => {
  await withRuntime(t, { manifest: accessManifest({ runtime: '\n  query:\n    max_sql_length: 1KiB' }), files: ACCESS_FILES }, async (context) => {
    const long = `SELECT 1 AS v -- ${'x'.repeat(2000)}`;
    const response = await context.sql(long, { headers: { 'x-api-key': KEYS.reader } });
    t.is(response.status, 400);
    const answer = (await response.json()) as { error: { code: string; message: string } };
    t.is(answer.error.code, 'SQL_TOO_LONG');
    t.regex(answer.error.message, /at most 1024 are accepted \(runtime\.query\.max_sql_length\)/);
    const short = await context.sql('SELECT 1 AS v', { headers: { 'x-api-key': KEYS.reader } });
    t.deepEqual(await short.json(), [{ v: 1 }]);
  });
});
