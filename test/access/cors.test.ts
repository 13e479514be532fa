import test from 'ava';
import { withRuntime } from '../helpers/runtime.js';
import { ACCESS_FILES, KEYS, accessManifest } from './access-fixtures.js';

const cors = (lines: string) => accessManifest({ runtime: `\n  cors:\n${lines}` });
const preflight = (origin: string, requestHeaders = 'x-api-key, content-type') => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': requestHeaders },
});

test('CORS is off by default: no CORS headers, and a preflight is not answered', async (t) => {
  await withRuntime(t, { manifest: accessManifest(), files: ACCESS_FILES }, async ({ baseUrl }) => {
    const response = await fetch(`${baseUrl}/v1/status`, { headers: { origin: 'https://app.example', 'x-api-key': KEYS.reader } });
    t.is(response.status, 200);
    t.is(response.headers.get('access-control-allow-origin'), null);
    t.is((await fetch(`${baseUrl}/v1/sql`, preflight('https://app.example'))).status, 401, 'without the plugin an OPTIONS request is just another request');
  });
});

test('allowed_origins ["*"] (the default): any origin, preflight answered without a key, errors readable', async (t) => {
  await withRuntime(t, { manifest: cors('    enabled: true'), files: ACCESS_FILES }, async ({ baseUrl }) => {
    const answer = await fetch(`${baseUrl}/v1/sql`, preflight('https://anywhere.example'));
    t.is(answer.status, 204, 'a preflight carries no credentials and needs none');
    t.is(answer.headers.get('access-control-allow-origin'), '*');
    t.is(answer.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, PATCH, OPTIONS');
    const allowed = answer.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
    for (const header of ['x-api-key', 'authorization', 'content-type', 'cache-control']) t.true(allowed.includes(header), header);
    t.deepEqual(answer.headers.get('vary')!.split(/,\s*/).sort(), ['Access-Control-Request-Headers', 'Access-Control-Request-Method', 'Origin']);

    const refused = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT 1', headers: { origin: 'https://anywhere.example' } });
    t.is(refused.status, 401);
    t.is(refused.headers.get('access-control-allow-origin'), '*', 'the page can read why it was refused');
    const ok = await fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: 'SELECT 1 AS one', headers: { origin: 'https://anywhere.example', 'x-api-key': KEYS.reader } });
    t.is(ok.status, 200);
    t.is(ok.headers.get('access-control-allow-origin'), '*');
    t.regex(ok.headers.get('vary') ?? '', /Origin/);
    t.regex(ok.headers.get('access-control-expose-headers') ?? '', /X-Cache/);

    const notPreflight = await fetch(`${baseUrl}/v1/sql`, { method: 'OPTIONS' });
    t.is(notPreflight.status, 405);
  });
});

test('a list of origins: listed origins are echoed, others get no Access-Control-Allow-Origin', async (t) => {
  const manifest = cors('    enabled: true\n    allowed_origins: ["https://app.example", "http://localhost:3000/"]');
  await withRuntime(t, { manifest, files: ACCESS_FILES }, async ({ baseUrl }) => {
    const key = { 'x-api-key': KEYS.reader };
    const listed = await fetch(`${baseUrl}/v1/datasets`, { headers: { origin: 'https://app.example', ...key } });
    t.is(listed.headers.get('access-control-allow-origin'), 'https://app.example');
    t.regex(listed.headers.get('vary') ?? '', /Origin/);
    const trailingSlash = await fetch(`${baseUrl}/v1/datasets`, { headers: { origin: 'http://localhost:3000', ...key } });
    t.is(trailingSlash.headers.get('access-control-allow-origin'), 'http://localhost:3000');

    const other = await fetch(`${baseUrl}/v1/datasets`, { headers: { origin: 'https://evil.example', ...key } });
    t.is(other.status, 200, 'the request itself is not refused: the browser withholds the answer');
    t.is(other.headers.get('access-control-allow-origin'), null);
    t.regex(other.headers.get('vary') ?? '', /Origin/, 'caches must not reuse one origin\'s answer for another');

    const otherPreflight = await fetch(`${baseUrl}/v1/sql`, preflight('https://evil.example'));
    t.is(otherPreflight.status, 204);
    t.is(otherPreflight.headers.get('access-control-allow-origin'), null);
    t.is(otherPreflight.headers.get('access-control-allow-methods'), null);

    const probe = await fetch(`${baseUrl}/health`, { headers: { origin: 'https://app.example' } });
    t.is(probe.headers.get('access-control-allow-origin'), 'https://app.example');
  });
});
