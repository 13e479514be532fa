/** The TLS service on its own: what reload swaps, refuses, reports and counts. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { parseDaemonArguments } from '../../cli/quarryd/args.js';
import { TlsService } from '../../core/listeners/tls-service.js';
import type { TlsMaterial } from '../../core/listeners/tls-material.js';
import { createLogger, type LogRecord } from '../../core/log.js';
import { MetricsRegistry } from '../../core/metrics/registry.js';
import { createTestPki, type TestPki } from '../helpers/certificates.js';

let pki: TestPki;
test.before(() => {
  pki = createTestPki();
});
test.after.always(() => pki?.remove());

function setup(files: Record<string, string>) {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-tls-service-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(directory, name), content);
  const logs: LogRecord[] = [];
  const metrics = new MetricsRegistry();
  const write = (name: string, content: string) => writeFileSync(path.join(directory, name), content);
  return { directory, logs, metrics, write, log: createLogger({ sink: (record) => logs.push(record) }), remove: () => rmSync(directory, { recursive: true, force: true }) };
}

test('reload swaps certificate, key and CA together, tells subscribers once, and counts results', (t) => {
  const files = setup({ 'cert.pem': pki.server.cert, 'key.pem': pki.server.key, 'ca.pem': pki.ca.cert });
  try {
    const config = { enabled: true, certificate_file: 'cert.pem', key_file: 'key.pem', client_auth_mode: 'request' as const, client_auth_ca_file: 'ca.pem' };
    const service = TlsService.fromConfig(config, files.directory, files.log, files.metrics);
    const seen: TlsMaterial[] = [];
    service.subscribe((material) => seen.push(material));
    t.true(service.reloadable);
    t.is(service.summary.subject, 'CN=localhost');
    t.is(service.reload().status, 'unchanged');
    t.is(seen.length, 0, 'nothing changed, nobody is told');

    files.write('cert.pem', pki.rotatedServer.cert);
    t.is(service.reload().status, 'failed', 'new certificate with the old key: refused as a set');
    t.is(service.material.cert, pki.server.cert);
    files.write('key.pem', pki.rotatedServer.key);
    files.write('ca.pem', pki.ca.cert + pki.foreignCa.cert);
    const outcome = service.reload();
    t.is(outcome.status, 'reloaded');
    t.deepEqual(seen, [{ cert: pki.rotatedServer.cert, key: pki.rotatedServer.key, ca: pki.ca.cert + pki.foreignCa.cert }]);

    files.write('ca.pem', 'garbage');
    t.like(service.reload(), { status: 'failed', reason: 'parse_error' });
    rmSync(path.join(files.directory, 'key.pem'));
    t.like(service.reload(), { status: 'failed', reason: 'io_error' });
    t.is(service.summary.subject, 'CN=quarry-rotated', 'failures keep the material in service');
    t.is(seen.length, 1);

    const counted = (result: string) => files.metrics.value('runtime_tls_reload_total', { scope: 'public', result });
    t.deepEqual([counted('ok'), counted('parse_error'), counted('io_error')], [2, 2, 1]);
    t.deepEqual(files.logs.filter((record) => record.level === 'warn').map((record) => record.message), Array(3).fill('TLS reload failed: the previous certificate stays in service'));
    t.false(JSON.stringify(files.logs).includes('PRIVATE KEY'), 'key material is never logged');
  } finally {
    files.remove();
  }
});

test('inline PEM is read once: SIGHUP has nothing to reload', (t) => {
  const files = setup({});
  try {
    const service = TlsService.fromConfig({ enabled: true, certificate: pki.server.cert, key: pki.server.key, client_auth_mode: 'none' }, files.directory, files.log, files.metrics);
    t.false(service.reloadable);
    t.false(service.requestsClientCertificate);
    t.deepEqual(service.reload(), { status: 'inline' });
    t.is(files.metrics.value('runtime_tls_reload_total', { scope: 'public', result: 'ok' }), undefined);
  } finally {
    files.remove();
  }
});

test('client_auth_ca inline with a file-based certificate: the files reload, the CA stays as read', (t) => {
  const files = setup({ 'cert.pem': pki.server.cert, 'key.pem': pki.server.key });
  try {
    const service = TlsService.fromConfig(
      { enabled: true, certificate_file: 'cert.pem', key_file: 'key.pem', client_auth_mode: 'required', client_auth_ca: pki.ca.cert },
      files.directory,
      files.log,
    );
    files.write('cert.pem', pki.rotatedServer.cert);
    files.write('key.pem', pki.rotatedServer.key);
    t.is(service.reload().status, 'reloaded');
    t.is(service.material.ca, pki.ca.cert);
  } finally {
    files.remove();
  }
});

test('quarryd TLS flags become runtime overrides, client-certificate ones included', (t) => {
  const args = parseDaemonArguments(['--tls-enabled', 'true', '--tls-certificate-file', 'server.pem', '--tls-key-file', 'key.pem', '--tls-client-auth-mode', 'required', '--tls-client-auth-ca-file', 'ca.pem']);
  t.deepEqual(args.setRuntime, [
    'tls.enabled=true',
    'tls.certificate_file="server.pem"',
    'tls.key_file="key.pem"',
    'tls.client_auth_mode="required"',
    'tls.client_auth_ca_file="ca.pem"',
  ]);
});
