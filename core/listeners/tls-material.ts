import { readFileSync } from 'node:fs';
import path from 'node:path';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { QuarryError } from '../errors/quarry-error.js';
import type { Logger } from '../log.js';
import type { TlsConfig } from '../manifest/types.js';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

/**
 * Reads the server certificate and key of `runtime.tls` (inline PEM or files relative to
 * the manifest) and checks them before any listener binds: readable, a key that matches,
 * not expired. Hot reload and client certificates are the access-control plugin's work.
 */
export function loadTlsMaterial(tls: TlsConfig, baseDirectory: string, log: Logger): TlsMaterial {
  const read = (inline: string | undefined, file: string | undefined, what: string): string => {
    if (inline !== undefined) return inline;
    const absolute = path.resolve(baseDirectory, file!);
    try {
      return readFileSync(absolute, 'utf8');
    } catch (error) {
      throw new QuarryError('LISTENER_FAILED', `runtime.tls.${what}_file: cannot read ${absolute}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  };
  const cert = read(tls.certificate, tls.certificate_file, 'certificate');
  const key = read(tls.key, tls.key_file, 'key');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new QuarryError('LISTENER_FAILED', `runtime.tls.certificate is not a PEM certificate: ${(error as Error).message}`);
  }
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(key))) {
      throw new QuarryError('LISTENER_FAILED', 'runtime.tls.key does not match runtime.tls.certificate');
    }
  } catch (error) {
    if (error instanceof QuarryError) throw error;
    throw new QuarryError('LISTENER_FAILED', `runtime.tls.key is not a PEM private key: ${(error as Error).message}`);
  }
  const expires = new Date(certificate.validTo);
  if (expires.getTime() < Date.now()) {
    throw new QuarryError('LISTENER_FAILED', `runtime.tls.certificate (${certificate.subject.replaceAll('\n', ', ')}) expired on ${expires.toISOString()}`);
  }
  log.info('TLS enabled for all listeners', { subject: certificate.subject.replaceAll('\n', ', '), expires: expires.toISOString() });
  return { cert, key };
}
