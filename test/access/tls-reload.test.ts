/**
 * Hot reload against a real quarryd process: rotate the certificate files, send SIGHUP,
 * and check that new connections (HTTP and Flight) see the new certificate while
 * connections opened before keep working; a broken rotation keeps the old certificate.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import path from 'node:path';
import test from 'ava';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { createTestPki, type TestPki } from '../helpers/certificates.js';
import { flightEndpointOf, runCommand, startDaemon, waitForOutput, type Daemon } from '../helpers/daemon.js';
import { writeManifestDirectory } from '../helpers/runtime.js';
import { https, serverCommonName } from '../helpers/tls-clients.js';
import { ACCESS_FILES, accessManifest } from './access-fixtures.js';

let pki: TestPki;
test.before(() => {
  pki = createTestPki();
});
test.after.always(() => pki?.remove());

/** Replaces a file the way deployment tools do: write aside, then rename over (never half-written). */
function replaceFile(file: string, content: string): void {
  writeFileSync(`${file}.next`, content);
  renameSync(`${file}.next`, file);
}

/** Sends SIGHUP and waits for the n-th reload outcome line. */
async function reload(daemon: Daemon, count: number): Promise<string> {
  daemon.child.kill('SIGHUP');
  const pattern = /(TLS reloaded: [^\n]*|TLS reload failed[^\n]*|TLS reload: files unchanged[^\n]*)/g;
  for (;;) {
    const lines = daemon.output().match(pattern) ?? [];
    if (lines.length >= count) return lines[count - 1]!;
    await waitForOutput(daemon, /TLS reload/);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('SIGHUP: new connections get the rotated certificate and CA, open ones keep going, bad files change nothing', async (t) => {
  const tls = (name: string) => path.join('tls', name);
  const directory = writeManifestDirectory({
    manifest: accessManifest({
      keys: false,
      runtime: `
  tls:
    enabled: true
    certificate_file: ${tls('cert.pem')}
    key_file: ${tls('key.pem')}
    client_auth_mode: request
    client_auth_ca_file: ${tls('clients-ca.pem')}`,
    }),
    files: { ...ACCESS_FILES, [tls('cert.pem')]: pki.server.cert, [tls('key.pem')]: pki.server.key, [tls('clients-ca.pem')]: pki.ca.cert },
  });
  const file = (name: string) => path.join(directory, tls(name));
  const daemon = await startDaemon([directory]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: pki.ca.cert });
  let flight: FlightSqlClient | undefined;
  try {
    const flightEndpoint = (await flightEndpointOf(daemon)).replace('grpc+tls://', '');
    flight = FlightSqlClient.connect({ endpoint: `grpc+tls://${flightEndpoint}`, rootCertificates: pki.ca.cert });
    const httpEndpoint = daemon.baseUrl.replace('https://', '');
    const sql = (options: { agent?: Agent; cert?: string; key?: string } = {}) => https(`${daemon.baseUrl}/v1/sql`, { ca: pki.ca.cert, method: 'POST', body: 'SELECT 1 AS one', ...options });
    t.regex(daemon.baseUrl, /^https:\/\//);
    t.regex(daemon.output(), /TLS enabled for all listeners subject="CN=localhost" expires=\S+ client_auth_mode=request reload="on SIGHUP"/);
    const first = await sql({ agent });
    t.is(first.serverCommonName, 'localhost');
    t.is((await flight.query('SELECT 1 AS one')).table.numRows, 1);
    t.is((await sql({ cert: pki.foreignClient.cert, key: pki.foreignClient.key })).status, 401, 'the foreign CA is not trusted yet');

    replaceFile(file('cert.pem'), pki.rotatedServer.cert);
    replaceFile(file('key.pem'), pki.rotatedServer.key);
    replaceFile(file('clients-ca.pem'), pki.ca.cert + pki.foreignCa.cert);
    t.regex(await reload(daemon, 1), /^TLS reloaded: new connections use the new certificate subject="CN=quarry-rotated"/);

    t.is(await serverCommonName(httpEndpoint, pki.ca.cert, ['http/1.1']), 'quarry-rotated', 'a new HTTP connection sees the new certificate');
    t.is(await serverCommonName(flightEndpoint, pki.ca.cert, ['h2']), 'quarry-rotated', 'a new Flight connection sees the new certificate');
    const kept = await sql({ agent });
    t.true(kept.reusedSocket, 'the request went over the connection opened before the reload');
    t.is(kept.status, 200);
    t.is(kept.serverCommonName, 'localhost', 'that connection keeps its handshake');
    t.is((await flight.query('SELECT 2 AS two')).table.numRows, 1, 'the Flight connection opened before keeps working');
    t.is((await sql({ cert: pki.foreignClient.cert, key: pki.foreignClient.key })).status, 200, 'the reloaded client CA bundle trusts the foreign CA');

    replaceFile(file('cert.pem'), 'not a certificate\n');
    t.regex(await reload(daemon, 2), /^TLS reload failed: the previous certificate stays in service error="runtime.tls.certificate_file is not a PEM certificate/);
    t.regex(daemon.output(), /WARN +\[tls\] TLS reload failed/);
    t.is(await serverCommonName(httpEndpoint, pki.ca.cert, ['http/1.1']), 'quarry-rotated', 'a broken file keeps the previous certificate');
    t.is((await sql()).status, 200);

    replaceFile(file('cert.pem'), pki.server.cert); // the key on disk is still the rotated one
    t.regex(await reload(daemon, 3), /TLS reload failed.*runtime.tls.key_file does not match runtime.tls.certificate_file/);
    rmSync(file('key.pem'));
    t.regex(await reload(daemon, 4), /TLS reload failed.*runtime.tls.key_file: cannot read .*key.pem: ENOENT/);
    t.is(await serverCommonName(flightEndpoint, pki.ca.cert, ['h2']), 'quarry-rotated');
    t.is((await flight.query('SELECT 3 AS three')).table.numRows, 1);
  } finally {
    flight?.close();
    agent.destroy();
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    rmSync(directory, { recursive: true, force: true });
  }
});

test('start-up refuses an expired or mismatched certificate with a clear error', async (t) => {
  const directory = writeManifestDirectory({ manifest: accessManifest({ keys: false }), files: ACCESS_FILES });
  try {
    const listen = ['--http', '127.0.0.1:0', '--flight', '127.0.0.1:0', '--tls-enabled', 'true'];
    // Three processes at once: each spends most of its time starting node and tsx.
    const [expired, mismatched, missing] = await Promise.all([
      runCommand('quarryd', [directory, ...listen, '--tls-certificate-file', pki.expiredServer.certFile, '--tls-key-file', pki.expiredServer.keyFile]),
      runCommand('quarryd', [directory, ...listen, '--tls-certificate-file', pki.server.certFile, '--tls-key-file', pki.client.keyFile]),
      runCommand('quarryd', [directory, ...listen, '--tls-certificate-file', 'nope.pem', '--tls-key-file', pki.server.keyFile]),
    ]);
    t.is(expired.code, 1);
    t.regex(expired.stderr, /error \[LISTENER_FAILED\]: runtime.tls.certificate_file \(CN=quarry-expired\) expired on \d{4}-/);
    t.regex(mismatched.stderr, /error \[LISTENER_FAILED\]: runtime.tls.key_file does not match runtime.tls.certificate_file \(CN=localhost\)/);
    t.regex(missing.stderr, /error \[LISTENER_FAILED\]: runtime.tls.certificate_file: cannot read .*nope.pem: ENOENT/);
    for (const result of [expired, mismatched, missing]) t.false(result.stderr.includes('PRIVATE KEY'), 'no key material in errors');
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
