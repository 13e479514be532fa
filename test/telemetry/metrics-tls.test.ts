import test from 'ava';
import { createTestPki } from '../helpers/certificates.js';
import { https } from '../helpers/tls-clients.js';
import { startTelemetryRuntime } from './helpers.js';

test('with runtime.tls the metrics listener serves HTTPS with the runtime certificate and asks no client certificate', async (t) => {
  const pki = createTestPki();
  const manifest = `datasets: []
runtime:
  tls:
    enabled: true
    certificate_file: ${pki.server.certFile}
    key_file: ${pki.server.keyFile}
    client_auth_mode: required
    client_auth_ca_file: ${pki.ca.certFile}
`;
  const context = await startTelemetryRuntime({ manifest, metrics: true });
  try {
    const endpoint = context.metricsUrl.replace(/^https?:\/\//, '');
    const metrics = await https(`https://${endpoint}/metrics`, { ca: pki.ca.cert });
    t.is(metrics.status, 200, 'no client certificate needed for /metrics even in required mode');
    t.is(metrics.serverCommonName, 'localhost');
    const health = await https(`https://${endpoint}/health`, { ca: pki.ca.cert });
    t.is(health.body, 'OK');
  } finally {
    await context.runtime.stop();
    pki.remove();
  }
});
