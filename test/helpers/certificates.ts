import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One certificate with its key, as PEM text and as files in the PKI directory. */
export interface IssuedCertificate {
  readonly cert: string;
  readonly key: string;
  readonly certFile: string;
  readonly keyFile: string;
}

/**
 * Throw-away certificates for TLS tests, made with the openssl CLI (EC P-256, ~0.3 s for
 * the whole set): generate once per test file and share. Nothing here is a secret.
 */
export interface TestPki {
  readonly directory: string;
  /** The CA that signs the server and the trusted client certificates. */
  readonly ca: IssuedCertificate;
  /** Another CA: its client certificate must not be accepted. */
  readonly foreignCa: IssuedCertificate;
  /** CN=localhost, SAN localhost and 127.0.0.1. */
  readonly server: IssuedCertificate;
  /** A second server certificate (CN=quarry-rotated), for reload tests. */
  readonly rotatedServer: IssuedCertificate;
  /** Same CA, but expired. */
  readonly expiredServer: IssuedCertificate;
  /** CN=client-alice, signed by `ca`. */
  readonly client: IssuedCertificate;
  /** CN=client-mallory, signed by `foreignCa`. */
  readonly foreignClient: IssuedCertificate;
  /** CN=client-expired, signed by `ca`, expired. */
  readonly expiredClient: IssuedCertificate;
  /** CN=quarry-node, signed by `ca`, for server and client use (a cluster node: listens and dials), SAN localhost and 127.0.0.1. */
  readonly node: IssuedCertificate;
  remove(): void;
}

function openssl(args: string[], directory: string): void {
  execFileSync('openssl', args, { cwd: directory, stdio: ['ignore', 'ignore', 'pipe'] });
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function readIssued(directory: string, name: string): IssuedCertificate {
  const certFile = path.join(directory, `${name}.pem`);
  const keyFile = path.join(directory, `${name}-key.pem`);
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
}

function selfSignedCa(directory: string, name: string, subject: string): IssuedCertificate {
  openssl(['req', '-x509', ...EC_KEY, '-days', '2', '-keyout', `${name}-key.pem`, '-out', `${name}.pem`, '-subj', subject,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'], directory);
  return readIssued(directory, name);
}

/** A leaf signed by `issuer`; `days` -1 makes it already expired (notAfter before now). */
function leaf(directory: string, issuer: string, name: string, subject: string, usage: 'server' | 'client' | 'node', days = 2): IssuedCertificate {
  openssl(['req', ...EC_KEY, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`, '-subj', subject], directory);
  const extensions = {
    server: 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n',
    client: 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n',
    node: 'basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n',
  }[usage];
  writeFileSync(path.join(directory, `${name}.ext`), extensions);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${issuer}.pem`, '-CAkey', `${issuer}-key.pem`, '-CAcreateserial',
    '-days', String(days), '-extfile', `${name}.ext`, '-out', `${name}.pem`], directory);
  return readIssued(directory, name);
}

/** Whether the openssl CLI can be run here. */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function createTestPki(): TestPki {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'quarry-pki-'));
  const ca = selfSignedCa(directory, 'ca', '/CN=Quarry Test CA');
  const foreignCa = selfSignedCa(directory, 'foreign-ca', '/CN=Foreign Test CA');
  return {
    directory,
    ca,
    foreignCa,
    server: leaf(directory, 'ca', 'server', '/CN=localhost', 'server'),
    rotatedServer: leaf(directory, 'ca', 'rotated-server', '/CN=quarry-rotated', 'server'),
    expiredServer: leaf(directory, 'ca', 'expired-server', '/CN=quarry-expired', 'server', -1),
    client: leaf(directory, 'ca', 'client', '/CN=client-alice', 'client'),
    foreignClient: leaf(directory, 'foreign-ca', 'foreign-client', '/CN=client-mallory', 'client'),
    expiredClient: leaf(directory, 'ca', 'expired-client', '/CN=client-expired', 'client', -1),
    node: leaf(directory, 'ca', 'node', '/CN=quarry-node', 'node'),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
