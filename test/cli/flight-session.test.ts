/**
 * `quarry sql` over Flight against the real runtime: the API key as bearer metadata, the
 * results-cache footer from DoGet's `x-cache`, grpc+tls with a private CA, and Ctrl-C
 * cancelling the gRPC call (and with it the query on the runtime).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { QuarryError } from '../../core/errors/quarry-error.js';
import { STAGE } from '../../core/hooks/stages.js';
import { createLogger } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { Runtime } from '../../core/runtime.js';
import { parseEndpoint } from '../../cli/quarry/endpoint.js';
import { RuntimeUnavailableError } from '../../cli/quarry/errors.js';
import { collectResult } from '../../cli/quarry/render/result-collector.js';
import { FlightQueryTransport } from '../../cli/quarry/transport/flight-query-transport.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { withFlight } from '../flight/flight-helpers.js';
import { runCommand } from '../helpers/daemon.js';
import { temporaryDirectory } from '../helpers/temporary-directory.js';
import { QUICKSTART_MANIFEST, withRuntime, writeManifestDirectory } from '../helpers/runtime.js';
import { startQuarry } from './helpers/cli-process.js';
import { closedPort } from './helpers/closed-port.js';

// The stand-in refuses with the api-key plugin's codes (registered by its module), as quarryd's own API keys do.
import '../../plugins/api-key/errors.js';

/** The results cache off, so that repeated statements are answered alike (and not `(cached)`). */
const UNCACHED_MANIFEST = `${QUICKSTART_MANIFEST}
runtime:
  caching:
    sql_results:
      enabled: false
`;
const setup = { manifest: UNCACHED_MANIFEST, withQuickstartData: true, flight: true };

function quarry(args: string[], options: { env?: Record<string, string>; input?: string } = {}) {
  const env = { QUARRY_HOME: temporaryDirectory('quarry-flight-home-'), QUARRY_API_KEY: '', NO_COLOR: '1', ...options.env };
  return runCommand('quarry', args, { env, input: options.input ?? '' });
}

/** Accepts the key `s3cret` (as Flight's bearer token or HTTP's X-API-Key) and records what Flight calls carried. */
function keyPlugin(seenAuthorization: string[]): QuarryPlugin {
  return {
    name: 'cli-test-key',
    apply(runtime) {
      runtime.hooks.auth.tapPromise({ name: 'cli-test-key', stage: STAGE.AUTHENTICATE }, async (request) => {
        const authorization = request.headers['authorization'];
        if (request.protocol === 'flight') seenAuthorization.push(String(authorization));
        if (authorization === 'Bearer s3cret' || request.headers['x-api-key'] === 's3cret') return undefined;
        return new QuarryError(authorization ? 'API_KEY_INVALID' : 'API_KEY_MISSING', authorization ? 'Invalid credentials' : 'Missing authorization header');
      });
    },
  };
}

/** Marks results of statements mentioning `from_cache` as cache hits, like a results cache would. */
const cacheMarker: QuarryPlugin = {
  name: 'cli-test-cache',
  apply(runtime) {
    runtime.hooks.cache.store.tapPromise({ name: 'cli-test-cache', stage: STAGE.CACHE }, async (result, request) =>
      request.sql.includes('from_cache') ? { ...result, cacheStatus: request.sql.includes('stale') ? 'STALE' : 'HIT' } : result,
    );
  },
};

test('the API key goes out as authorization: Bearer; a missing or wrong key reads as unauthorized', async (t) => {
  const seen: string[] = [];
  await withRuntime(t, { ...setup, bundle: [...defaultPlugins(), keyPlugin(seen)] }, async (runtime) => {
    const endpoint = `grpc://${runtime.runtime.flightEndpoint}`;
    const missing = await quarry(['sql', '--endpoint', endpoint, '-e', 'select 1 as one']);
    t.is(missing.code, 1);
    t.is(missing.stderr, 'Error: unauthorized: check --api-key (or QUARRY_API_KEY)\n');
    const wrong = await quarry(['sql', '--endpoint', endpoint, '--api-key', 'nope', '-e', 'select 1 as one']);
    t.is(wrong.stderr, 'Error: unauthorized: check --api-key (or QUARRY_API_KEY)\n');
    const flag = await quarry(['sql', '--endpoint', endpoint, '--api-key', 's3cret', '-e', 'select 1 as one']);
    t.is(flag.code, 0, flag.stderr);
    t.regex(flag.stdout, /1 row\./);
    const fromEnvironment = await quarry(['sql', '--endpoint', endpoint, '-e', 'select 1 as one', '-o', 'json'], { env: { QUARRY_API_KEY: 's3cret' } });
    t.is(fromEnvironment.stdout, '[{"one":1}]\n');
    t.deepEqual(seen.slice(-2), ['Bearer s3cret', 'Bearer s3cret'], 'GetFlightInfo and DoGet both carry the key');
  });
});

test('x-cache from the DoGet metadata marks the footer (cached) or (cached, stale)', async (t) => {
  await withRuntime(t, { ...setup, bundle: [...defaultPlugins(), cacheMarker] }, async (runtime) => {
    const endpoint = `grpc://${runtime.runtime.flightEndpoint}`;
    const hit = await quarry(['sql', '--endpoint', endpoint, '-e', "select 'from_cache' as origin"]);
    t.regex(hit.stdout, /Time: \d+\.\d{4} seconds\. 1 row\. \(cached\)\n$/);
    const stale = await quarry(['sql', '--endpoint', endpoint, '-e', "select 'from_cache stale' as origin"]);
    t.regex(stale.stdout, /1 row\. \(cached, stale\)\n$/);
    const fresh = await quarry(['sql', '--endpoint', endpoint, '-e', 'select 1 as one']);
    t.regex(fresh.stdout, /1 row\.\n$/);
  });
});

test('Ctrl-C cancels the running Flight query on the runtime and the REPL carries on', async (t) => {
  await withRuntime(t, setup, async (runtime) => {
    const session = startQuarry(['sql', '--endpoint', `grpc://${runtime.runtime.flightEndpoint}`]);
    await session.waitForOutput('sql> ');
    session.write('SELECT sum(hash(i)) AS total FROM range(20000000000) t(i);\n');
    t.true(await until(() => runtime.runtime.pipeline.activeCount > 0, 20_000), 'the query started');
    session.signal('SIGINT');
    await session.waitForOutput('Query cancelled.\n');
    t.true(await until(() => runtime.runtime.pipeline.activeCount === 0, 10_000), 'the runtime stopped the query');
    session.write('select 1 as one;\n');
    await session.waitForOutput('1 row.');
    session.endInput();
    const result = await session.exited;
    t.is(result.code, 0, result.stderr);
  });
});

test('grpc+tls:// trusts the CA from --tls-root-certificate-file and names TLS without it', async (t) => {
  const certificate = selfSigned();
  if (!certificate) {
    t.log('openssl is not available: skipped');
    t.pass();
    return;
  }
  const tls = { cert: readFileSync(certificate.certFile, 'utf8'), key: readFileSync(certificate.keyFile, 'utf8') };
  await withFlight(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, ownListener: true, tls }, async ({ listener }) => {
    const endpoint = `grpc+tls://${listener!.endpoint}`;
    const trusted = await quarry(['sql', '--endpoint', endpoint, '--tls-root-certificate-file', certificate.certFile, '-e', 'select 42 as answer', '-o', 'csv']);
    t.is(trusted.code, 0, trusted.stderr);
    t.is(trusted.stdout, 'answer\r\n42\r\n');
    t.is(trusted.stderr, '', 'no Node warning about the IP address as TLS server name');
    const untrusted = await quarry(['sql', '--endpoint', endpoint, '-e', 'select 1']);
    t.is(untrusted.code, 1);
    t.regex(untrusted.stderr, /^Error: TLS connection to grpc\+tls:\/\/127\.0\.0\.1:\d+ failed: .*\(for a private CA pass --tls-root-certificate-file\)\n$/);
    const plaintext = await quarry(['sql', '--endpoint', endpoint.replace('grpc+tls:', 'grpc:'), '-e', 'select 1']);
    t.is(plaintext.code, 1);
    t.regex(plaintext.stderr, /^Error: Flight connection to grpc:\/\/127\.0\.0\.1:\d+ failed: .*use grpc\+tls:\/\/\)\n$/);
  });
});

test('after "runtime unavailable" the same session reaches a runtime started since, on its first try', async (t) => {
  const port = await closedPort();
  const transport = new FlightQueryTransport({ endpoint: parseEndpoint(`grpc://127.0.0.1:${port}`), apiKey: undefined, caCertificate: undefined });
  const directory = writeManifestDirectory({ manifest: 'version: v2\nkind: Spicepod\nname: empty\n' });
  let runtime: Runtime | undefined;
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await t.throwsAsync(transport.queryArrow('select 1', {}), { instanceOf: RuntimeUnavailableError });
    }
    const loaded = await loadManifest({ path: directory, bundle: defaultPlugins() });
    const log = createLogger({ level: 'info', sink: () => undefined });
    runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log, http: '127.0.0.1:0', flight: `127.0.0.1:${port}` });
    await runtime.start();
    // After three failures the old channel sits in gRPC's reconnect back-off (about 2.5 s), where
    // a call without waitForReady fails at once with UNAVAILABLE: the first query succeeding
    // shows the session made a fresh channel. No clock is read (a loaded machine would fail it).
    const result = await collectResult(await transport.queryArrow('select 1 as one', {}));
    t.is(result.totalRows, 1);
  } finally {
    transport.close();
    await runtime?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
});

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** A self-signed certificate for 127.0.0.1 made with the openssl CLI; undefined without it. */
function selfSigned(): { certFile: string; keyFile: string } | undefined {
  const folder = mkdtempSync(join(tmpdir(), 'quarry-cli-flight-tls-'));
  const certFile = join(folder, 'cert.pem');
  const keyFile = join(folder, 'key.pem');
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-keyout', keyFile, '-out', certFile, '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'ignore' });
    return { certFile, keyFile };
  } catch {
    return undefined;
  }
}
