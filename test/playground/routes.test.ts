import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import test from 'ava';
import { ACCESS_FILES, accessManifest, KEYS } from '../access/access-fixtures.js';
import { QUICKSTART_MANIFEST, repositoryRoot, withRuntime } from '../helpers/runtime.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { createPlaygroundPlugin } from '../../plugins/playground/index.js';

/** The playground's HTTP surface, read with curl (a client Quarry did not write) and fetch. */
const built = path.join(repositoryRoot, 'dist/playground');
const buildInfo = () => JSON.parse(readFileSync(path.join(built, 'build.json'), 'utf8')) as { version: string };

/** curl runs beside the event loop (the runtime under test answers it in this process). */
const curl = async (...args: string[]) => (await promisify(execFile)('curl', ['-s', ...args], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 })).stdout;

async function curlHeaders(url: string): Promise<Record<string, string>> {
  const output = (await curl('-D', '-', '-o', '/dev/null', url)).toString('utf8');
  const headers: Record<string, string> = {};
  for (const line of output.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  headers[':status'] = output.split(' ')[1] ?? '';
  return headers;
}

test('the page is served at / and /play with a strict CSP whose nonce is new on every response', async (t) => {
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ baseUrl }) => {
    const nonces = new Set<string>();
    for (const route of ['/', '/play', '/play/']) {
      const headers = await curlHeaders(`${baseUrl}${route}`);
      t.is(headers[':status'], '200', route);
      t.is(headers['content-type'], 'text/html; charset=utf-8');
      t.is(headers['cache-control'], 'no-store');
      t.is(headers['x-frame-options'], 'DENY');
      t.is(headers['x-content-type-options'], 'nosniff');
      const policy = headers['content-security-policy'] ?? '';
      const directives = new Map(policy.split('; ').map((directive) => [directive.split(' ')[0], directive] as const));
      t.is(directives.get('default-src'), "default-src 'none'");
      t.is(directives.get('script-src'), "script-src 'self'", 'no inline or eval\'d script');
      t.is(directives.get('connect-src'), "connect-src 'self'", 'no request leaves the runtime');
      t.is(directives.get('frame-ancestors'), "frame-ancestors 'none'");
      const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
      t.truthy(nonce);
      nonces.add(nonce!);
    }
    t.is(nonces.size, 3);
    const page = await (await fetch(`${baseUrl}/`)).text();
    const headerNonce = /'nonce-([^']+)'/.exec((await fetch(`${baseUrl}/`)).headers.get('content-security-policy') ?? '')?.[1];
    t.regex(page, /<meta name="csp-nonce" content="[^"]+">/);
    t.notRegex(page, /<script>|<script [^>]*>[^<]/, 'no inline script');
    t.notRegex(page, /https?:\/\//, 'the page names no other origin');
    t.truthy(headerNonce);
  });
});

test('assets are served gzipped when asked, cached for good under their version, and nothing else is served', async (t) => {
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ baseUrl }) => {
    const { version } = buildInfo();
    const zipped = await fetch(`${baseUrl}/play/assets/app.js?v=${version}`, { headers: { 'accept-encoding': 'gzip' } });
    t.is(zipped.status, 200);
    t.is(zipped.headers.get('content-type'), 'text/javascript; charset=utf-8');
    t.is(zipped.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    // curl without --compressed: the bytes as sent.
    const raw = await curl('-H', 'accept-encoding: gzip', `${baseUrl}/play/assets/app.js?v=${version}`);
    t.deepEqual(gunzipSync(raw), readFileSync(path.join(built, 'app.js')));
    const plain = await curl(`${baseUrl}/play/assets/app.css`);
    t.deepEqual(plain, readFileSync(path.join(built, 'app.css')));
    t.is((await curlHeaders(`${baseUrl}/play/assets/app.css`))['cache-control'], 'no-cache', 'an unversioned URL is revalidated');
    for (const name of ['index.html', 'build.json', '..%2F..%2Fpackage.json', 'app.js.LEGAL.txt']) {
      const response = await fetch(`${baseUrl}/play/assets/${name}`);
      t.is(response.status, 404, name);
      t.is(((await response.json()) as { error: { code: string } }).error.code, 'ROUTE_NOT_FOUND');
    }
  });
});

test('with API keys on, the page needs none but its data routes do; the context says who may write', async (t) => {
  await withRuntime(t, { manifest: accessManifest(), files: ACCESS_FILES }, async ({ baseUrl }) => {
    t.is((await fetch(`${baseUrl}/`)).status, 200);
    t.is((await fetch(`${baseUrl}/play/assets/app.js`)).status, 200);
    for (const route of ['/v1/playground/context', '/v1/playground/figures']) {
      const refused = await fetch(`${baseUrl}${route}`);
      t.is(refused.status, 401, route);
      t.is(((await refused.json()) as { error: { code: string } }).error.code, 'API_KEY_MISSING');
    }
    const context = async (key: string) => (await (await fetch(`${baseUrl}/v1/playground/context`, { headers: { 'x-api-key': key } })).json()) as { may_write: boolean; principal: string };
    t.false((await context(KEYS.reader)).may_write);
    t.true((await context(KEYS.writer)).may_write);
  });
});

test('the live figures come from the runtime\'s metrics: queries per second, p95, cache hit ratio', async (t) => {
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true }, async ({ baseUrl, sql, runtime }) => {
    for (let index = 0; index < 4; index += 1) await (await sql('SELECT count(*) FROM orders')).text();
    // The cache stores an answer just after sending it: a repeat that comes first misses too.
    const hits = runtime.metrics.value('results_cache_hits') ?? 0;
    const misses = runtime.metrics.value('results_cache_misses') ?? 0;
    t.true(hits >= 1 && hits + misses === 4, `${hits} hits, ${misses} misses`);
    const figures = (await (await fetch(`${baseUrl}/v1/playground/figures`)).json()) as { queries_per_second: number; p95_ms: number; cache_hit_ratio: number; queries_total: number; unavailable: string[] };
    t.true(figures.queries_total >= 4);
    t.true(figures.queries_per_second > 0);
    t.true(figures.p95_ms > 0);
    t.is(figures.cache_hit_ratio, hits / (hits + misses));
    t.deepEqual(figures.unavailable, []);
  });
  await withRuntime(t, { manifest: `${QUICKSTART_MANIFEST}plugins:\n  - name: telemetry\n    enabled: false\n  - name: results-cache\n    enabled: false\n`, withQuickstartData: true }, async ({ baseUrl }) => {
    const figures = (await (await fetch(`${baseUrl}/v1/playground/figures`)).json()) as { queries_per_second: null; unavailable: string[] };
    t.is(figures.queries_per_second, null);
    t.deepEqual(figures.unavailable, ['queries/s and p95: the telemetry plugin is off', 'cache hit ratio: the results cache is off']);
  });
});

test('an unbuilt front end is a coded 503 naming the fix, and a disabled plugin serves nothing', async (t) => {
  const empty = temporaryDirectory('quarry-playground-');
  const bundle = defaultPlugins().map((plugin) => (plugin.name === 'playground' ? createPlaygroundPlugin({ assetsFolder: empty }) : plugin));
  await withRuntime(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, bundle }, async ({ baseUrl, logs }) => {
    const response = await fetch(`${baseUrl}/`);
    t.is(response.status, 503);
    const body = (await response.json()) as { error: { code: string; message: string } };
    t.is(body.error.code, 'PLAYGROUND_NOT_BUILT');
    t.regex(body.error.message, /npm run build/);
    t.true(logs.some((record) => /the playground is not served/.test(record.message)));
  });
  await withRuntime(t, { manifest: `${QUICKSTART_MANIFEST}plugins:\n  - name: playground\n    enabled: false\n`, withQuickstartData: true }, async ({ baseUrl }) => {
    for (const route of ['/', '/play', '/play/assets/app.js', '/v1/playground/context']) {
      const response = await fetch(`${baseUrl}${route}`);
      t.is(response.status, 404, route);
      t.is(((await response.json()) as { error: { code: string } }).error.code, 'ROUTE_NOT_FOUND');
    }
  });
});

test('docs/playground.md states the built front end\'s size (within 5%)', (t) => {
  const sizes = (JSON.parse(readFileSync(path.join(built, 'build.json'), 'utf8')) as { sizes: Record<string, { bytes: number; gzip_bytes: number }> }).sizes;
  const docs = readFileSync(path.join(repositoryRoot, 'docs/playground.md'), 'utf8');
  for (const file of ['app.js', 'app.css']) {
    const row = new RegExp(`^\\| \`${file.replace('.', '\\.')}\`[^|]*\\| ([\\d,]+) \\| ([\\d,]+) \\|$`, 'm').exec(docs);
    t.truthy(row, `a size row for ${file}`);
    const [stated, statedGzip] = [row![1]!, row![2]!].map((text) => Number(text.replaceAll(',', '')));
    t.true(Math.abs(stated! - sizes[file]!.bytes) / sizes[file]!.bytes < 0.05, `${file}: docs say ${stated}, built ${sizes[file]!.bytes}`);
    t.true(Math.abs(statedGzip! - sizes[file]!.gzip_bytes) / sizes[file]!.gzip_bytes < 0.05, `${file} gzipped: docs say ${statedGzip}, built ${sizes[file]!.gzip_bytes}`);
  }
});
