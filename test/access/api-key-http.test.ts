/**
 * The API-key matrix over HTTP: every endpoint × every way of sending (or not sending) a
 * key, against one runtime. Expected outcomes are written as a table, so a wrong cell
 * names the endpoint and the credential.
 */
import test from 'ava';
import { startRuntime, type TestRuntime } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from './access-fixtures.js';

type Credential = { name: string; headers: Record<string, string>; outcome: 'missing' | 'invalid' | 'writer' | 'reader' };

const credentials: Credential[] = [
  { name: 'no key', headers: {}, outcome: 'missing' },
  { name: 'wrong X-API-Key', headers: { 'x-api-key': 'not-a-key' }, outcome: 'invalid' },
  { name: 'wrong Bearer', headers: { authorization: 'Bearer not-a-key' }, outcome: 'invalid' },
  { name: 'Basic scheme', headers: { authorization: `Basic ${Buffer.from(`:${KEYS.writer}`).toString('base64')}` }, outcome: 'invalid' },
  { name: 'X-API-Key', headers: { 'x-api-key': KEYS.writer }, outcome: 'writer' },
  { name: 'Bearer', headers: { authorization: `Bearer ${KEYS.writer}` }, outcome: 'writer' },
  { name: 'bearer', headers: { authorization: `bearer ${KEYS.writer}` }, outcome: 'writer' },
  { name: 'BEARER', headers: { authorization: `BEARER ${KEYS.writer}` }, outcome: 'writer' },
  { name: 'both, X-API-Key wrong', headers: { 'x-api-key': 'not-a-key', authorization: `Bearer ${KEYS.writer}` }, outcome: 'invalid' },
  { name: 'both, Bearer wrong', headers: { 'x-api-key': KEYS.writer, authorization: 'Bearer not-a-key' }, outcome: 'writer' },
  { name: 'read-only key (:ro)', headers: { 'x-api-key': KEYS.reader }, outcome: 'reader' },
  { name: 'read-only key (no suffix, Bearer)', headers: { authorization: `Bearer ${KEYS.plain}` }, outcome: 'reader' },
];

type Endpoint = { name: string; method: string; path: string; body?: string; public?: boolean; write?: boolean; ok: number };

const endpoints: Endpoint[] = [
  { name: 'health', method: 'GET', path: '/health', public: true, ok: 200 },
  { name: 'ready', method: 'GET', path: '/v1/ready', public: true, ok: 200 },
  { name: 'status', method: 'GET', path: '/v1/status', ok: 200 },
  { name: 'datasets', method: 'GET', path: '/v1/datasets', ok: 200 },
  { name: 'refresh', method: 'POST', path: '/v1/datasets/events/acceleration/refresh', write: true, ok: 201 },
  { name: 'set refresh_sql', method: 'PATCH', path: '/v1/datasets/events/acceleration', body: '{"refresh_sql": "SELECT * FROM events"}', write: true, ok: 200 },
  { name: 'sql read', method: 'POST', path: '/v1/sql', body: 'SELECT count(*) AS n FROM events', ok: 200 },
  { name: 'sql write', method: 'POST', path: '/v1/sql', body: "INSERT INTO events VALUES (9, 'nine')", write: true, ok: 200 },
];

function expected(endpoint: Endpoint, credential: Credential): { status: number; code?: string } {
  if (endpoint.public) return { status: endpoint.ok };
  if (credential.outcome === 'missing') return { status: 401, code: 'API_KEY_MISSING' };
  if (credential.outcome === 'invalid') return { status: 401, code: 'API_KEY_INVALID' };
  if (endpoint.write && credential.outcome === 'reader') return { status: 403, code: 'WRITE_NOT_ALLOWED' };
  return { status: endpoint.ok };
}

let context: TestRuntime;
test.before(async () => {
  context = await startRuntime({ manifest: accessManifest(), files: ACCESS_FILES });
});
test.after.always(async () => {
  await context?.runtime.stop();
});

test('every HTTP endpoint × every credential gets the expected status', async (t) => {
  for (const endpoint of endpoints) {
    for (const credential of credentials) {
      const response = await fetch(`${context.baseUrl}${endpoint.path}`, { method: endpoint.method, headers: credential.headers, body: endpoint.body });
      const body = await response.text();
      const want = expected(endpoint, credential);
      const cell = `${endpoint.name} with ${credential.name}`;
      t.is(response.status, want.status, `${cell}: ${body}`);
      if (want.code) t.is((JSON.parse(body) as { error: { code: string } }).error.code, want.code, cell);
      if (want.status === 401) {
        t.is(response.headers.get('www-authenticate'), 'Bearer', `${cell}: WWW-Authenticate`);
        t.is(response.headers.get('content-type'), 'application/json; charset=utf-8', cell);
      }
    }
  }
});

test('refusals never echo the key that was sent, and the log never holds a key', async (t) => {
  const sent = ['not-a-key-but-secret-looking', KEYS.writer.slice(0, -1)];
  for (const key of sent) {
    // A bare key in Authorization (no scheme) must not be echoed either.
    const variants: Array<Record<string, string>> = [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }, { authorization: key }, { authorization: `Token ${key}` }];
    for (const headers of variants) {
      const response = await fetch(`${context.baseUrl}/v1/sql`, { method: 'POST', headers, body: 'SELECT 1' });
      const body = await response.text();
      t.is(response.status, 401);
      t.false(body.includes(key), body);
    }
  }
  const logged = JSON.stringify(context.logs);
  for (const key of [...sent, KEYS.writer, KEYS.reader, KEYS.plain]) t.false(logged.includes(key), `the log mentions ${key}`);
});

test('a read-only key reads but cannot write, whatever the door within HTTP', async (t) => {
  const reader = { 'x-api-key': KEYS.reader };
  const read = await fetch(`${context.baseUrl}/v1/sql`, { method: 'POST', headers: reader, body: 'SELECT 1 AS one' });
  t.is(read.status, 200);
  const write = await fetch(`${context.baseUrl}/v1/sql`, { method: 'POST', headers: reader, body: 'DELETE FROM events' });
  t.is(write.status, 403);
  t.regex(await write.text(), /WRITE_NOT_ALLOWED.*:rw/);
});

test('an unknown route needs a key too (no route map for anonymous callers)', async (t) => {
  t.is((await fetch(`${context.baseUrl}/v1/nope`)).status, 401);
  t.is((await fetch(`${context.baseUrl}/v1/nope`, { headers: { 'x-api-key': KEYS.writer } })).status, 404);
});
