/**
 * https:// endpoints: a private CA passed with --tls-root-certificate-file is trusted, and
 * without it the failure names TLS. The HTTPS server here is a minimal stand-in for
 * quarryd's /v1/status until the end-to-end tests run against the real runtime.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { parseEndpoint } from '../../cli/quarry/endpoint.js';
import { TransportError } from '../../cli/quarry/errors.js';
import { fetchStatus } from '../../cli/quarry/http/admin-client.js';
import { HttpClient } from '../../cli/quarry/http/http-client.js';
import { runQuarry } from './helpers/cli-process.js';

/** A self-signed certificate for 127.0.0.1 made with the openssl CLI; undefined when openssl is missing. */
function selfSignedCertificate(): { key: string; cert: string; certFile: string } | undefined {
  const folder = mkdtempSync(join(tmpdir(), 'quarry-cli-tls-'));
  const keyFile = join(folder, 'key.pem');
  const certFile = join(folder, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

test('trusts a private CA given by file, and names TLS when the certificate is not trusted', async (t) => {
  const certificate = selfSignedCertificate();
  if (!certificate) {
    t.log('openssl is not available: skipped');
    t.pass();
    return;
  }
  const server = createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    // /v1/status has one listener; /v1/datasets (status shows it too) none.
    response.end(JSON.stringify(request.url === '/v1/datasets' ? [] : [{ name: 'http', endpoint: '127.0.0.1:8090', status: 'Ready' }]));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const untrusted = new HttpClient({ endpoint: parseEndpoint(endpoint), apiKey: undefined, caCertificate: undefined });
    await t.throwsAsync(fetchStatus(untrusted), { instanceOf: TransportError, message: /^TLS connection to https:\/\/127\.0\.0\.1:\d+ failed: .*--tls-root-certificate-file/ });
    untrusted.close();

    const result = await runQuarry(['status', '--endpoint', endpoint, '--tls-root-certificate-file', certificate.certFile]);
    t.is(result.code, 0, result.stderr);
    t.is(result.stdout, 'NAME  ENDPOINT        STATUS\nhttp  127.0.0.1:8090  Ready\n');

    const plain = await runQuarry(['status', '--endpoint', endpoint.replace('https:', 'http:')]);
    t.is(plain.code, 1);
    t.regex(plain.stderr, /is it an https:\/\/ endpoint\?/);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
