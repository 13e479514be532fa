/**
 * The auth hook is a real extension point: the example plugin in examples/plugins/ is
 * loaded by its manifest (`plugins: [{ from: ./hmac-auth.ts }]`) and replaces API keys
 * without any change to Quarry's code.
 */
import path from 'node:path';
import test from 'ava';
import { createLogger, type LogRecord } from '../../core/log.js';
import { loadManifest } from '../../core/manifest/load.js';
import { Runtime } from '../../core/runtime.js';
import { defaultPlugins } from '../../plugins/default-bundle.js';
import { signedHeaders } from '../../examples/plugins/sign-request.js';
import { runCommand } from '../helpers/daemon.js';
import { repositoryRoot } from '../helpers/runtime.js';
import { ensureExamplePackage } from '../helpers/example-package.js';

const exampleDirectory = path.join(repositoryRoot, 'examples/plugins');
const secret = 'reporting-secret-7d1c9e';

let runtime: Runtime;
let baseUrl: string;
const logs: LogRecord[] = [];
test.before(async () => {
  await ensureExamplePackage();
  const loaded = await loadManifest({ path: exampleDirectory, bundle: defaultPlugins(), env: { HMAC_REPORTING_SECRET: secret } });
  const log = createLogger({ level: 'verbose', sink: (record) => logs.push(record) });
  runtime = new Runtime({ manifest: loaded.manifest, source: loaded.source, plugins: loaded.plugins, log, http: '127.0.0.1:0', flight: false });
  await runtime.start();
  await runtime.whenLoaded();
  baseUrl = `http://${runtime.httpEndpoint}`;
});
test.after.always(async () => {
  await runtime?.stop();
});

const query = (headers: Record<string, string>, sql = 'SELECT count(*) AS n FROM orders') =>
  fetch(`${baseUrl}/v1/sql`, { method: 'POST', body: sql, headers });

test('a signed request is answered and names its caller; probes need no signature', async (t) => {
  const response = await query(signedHeaders('reporting', secret, 'POST', '/v1/sql'));
  t.is(response.status, 200, await response.clone().text());
  t.deepEqual(await response.json(), [{ n: 5000 }]);
  t.is((await fetch(`${baseUrl}/health`)).status, 200);
  t.true(logs.some((record) => record.scope === 'hmac-auth' && record.message === 'HMAC request signing required'));
});

test('unsigned, wrongly signed, replayed-late or foreign-client requests get 401 with the plugin\'s codes', async (t) => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['unsigned', {}, 'HMAC_SIGNATURE_MISSING'],
    ['wrong secret', signedHeaders('reporting', 'not-the-secret', 'POST', '/v1/sql'), 'HMAC_SIGNATURE_INVALID'],
    ['signed for another route', signedHeaders('reporting', secret, 'GET', '/v1/status'), 'HMAC_SIGNATURE_INVALID'],
    ['ten minutes old', signedHeaders('reporting', secret, 'POST', '/v1/sql', Date.now() - 600_000), 'HMAC_SIGNATURE_INVALID'],
    ['unknown client', signedHeaders('someone', secret, 'POST', '/v1/sql'), 'HMAC_SIGNATURE_INVALID'],
  ];
  for (const [name, headers, code] of cases) {
    const response = await query(headers);
    t.is(response.status, 401, name);
    t.is(((await response.json()) as { error: { code: string } }).error.code, code, name);
  }
});

test('the read-only client cannot write: the core enforces what the plugin decided', async (t) => {
  const response = await query(signedHeaders('reporting', secret, 'POST', '/v1/sql'), 'DELETE FROM orders');
  t.is(response.status, 403);
});

test('quarryd --check validates the example and masks its secret', async (t) => {
  const result = await runCommand('quarryd', [exampleDirectory, '--check'], { env: { HMAC_REPORTING_SECRET: secret } });
  t.is(result.code, 0, result.stderr);
  t.regex(result.stdout, /hmac_auth:/);
  t.false(result.stdout.includes(secret));
});
