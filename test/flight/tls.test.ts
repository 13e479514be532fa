import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import test from 'ava';
import { status } from '@grpc/grpc-js';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { QUICKSTART_MANIFEST } from '../helpers/runtime.js';
import { grpcError, withFlight } from './flight-helpers.js';

/** A self-signed certificate for 127.0.0.1, made with the openssl CLI (undefined without it). */
function selfSigned(): { cert: string; key: string } | undefined {
  const directory = mkdtempSync(path.join(tmpdir(), 'quarry-flight-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-keyout', path.join(directory, 'key.pem'), '-out', path.join(directory, 'cert.pem'),
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ], { stdio: 'ignore' });
    return { cert: readFileSync(path.join(directory, 'cert.pem'), 'utf8'), key: readFileSync(path.join(directory, 'key.pem'), 'utf8') };
  } catch {
    return undefined;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test('with TLS material the listener serves grpc+tls; plaintext clients cannot talk to it', async (t) => {
  const tls = selfSigned();
  if (!tls) {
    t.log('openssl is not available: skipped');
    t.pass();
    return;
  }
  await withFlight(t, { manifest: QUICKSTART_MANIFEST, withQuickstartData: true, ownListener: true, tls }, async ({ client, listener }) => {
    const { table } = await client.query('SELECT 42 AS answer');
    t.is(table.get(0)!.toJSON()['answer'], 42);
    const plaintext = FlightSqlClient.connect({ endpoint: `grpc://${listener!.endpoint}` });
    try {
      t.is((await grpcError(plaintext.query('SELECT 1'))).code, status.UNAVAILABLE);
    } finally {
      plaintext.close();
    }
  });
});
