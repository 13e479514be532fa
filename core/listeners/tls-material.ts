import { readFileSync } from 'node:fs';
import path from 'node:path';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { QuarryError } from '../errors/quarry-error.js';
import type { TlsConfig } from '../manifest/types.js';

/** PEM text a TLS listener needs: its certificate (chain), key, and the CA bundle client certificates are checked against. */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  /** Absent when client certificates are not requested (client_auth_mode none). */
  readonly ca?: string | undefined;
}

/** Where one PEM comes from: inline text (also `${ secrets:NAME }`, already replaced) is read once; a file is re-read on reload. */
export type PemSource =
  | { readonly kind: 'inline'; readonly field: string; readonly text: string }
  | { readonly kind: 'file'; readonly field: string; readonly path: string };

export interface TlsSources {
  readonly certificate: PemSource;
  readonly key: PemSource;
  readonly ca: PemSource | undefined;
}

/** What start-up and reload log about a certificate (never key material). */
export interface CertificateSummary {
  readonly subject: string;
  readonly expires: Date;
}

/** Why reading failed, as the reload metric labels it: `io_error` (unreadable file) or `parse_error` (bad PEM, mismatch, expired). */
export type TlsFailureReason = 'io_error' | 'parse_error';

function failure(reason: TlsFailureReason, message: string, cause?: unknown): QuarryError {
  return new QuarryError('LISTENER_FAILED', message, { cause, details: { reason } });
}

/** The reason carried by an error from this module (parse_error when unknown). */
export function failureReason(error: unknown): TlsFailureReason {
  return error instanceof QuarryError && error.details?.['reason'] === 'io_error' ? 'io_error' : 'parse_error';
}

/** Where each part of `runtime.tls` comes from; files resolve against the manifest's directory. */
export function tlsSources(tls: TlsConfig, baseDirectory: string): TlsSources {
  const source = (inline: string | undefined, file: string | undefined, field: string): PemSource | undefined => {
    if (inline !== undefined) return { kind: 'inline', field: `runtime.tls.${field}`, text: inline };
    if (file !== undefined) return { kind: 'file', field: `runtime.tls.${field}_file`, path: path.resolve(baseDirectory, file) };
    return undefined;
  };
  const certificate = source(tls.certificate, tls.certificate_file, 'certificate');
  const key = source(tls.key, tls.key_file, 'key');
  // The manifest rules already demand both; this guards callers that build a TlsConfig by hand.
  if (!certificate || !key) throw failure('parse_error', 'runtime.tls is enabled but a certificate or key is missing: set certificate/certificate_file and key/key_file');
  const mode = tls.client_auth_mode;
  const ca = mode === 'none' ? undefined : source(tls.client_auth_ca, tls.client_auth_ca_file, 'client_auth_ca');
  return { certificate, key, ca };
}

export function isReloadable(sources: TlsSources): boolean {
  return [sources.certificate, sources.key, sources.ca].some((source) => source?.kind === 'file');
}

function readSource(source: PemSource): string {
  if (source.kind === 'inline') return source.text;
  try {
    return readFileSync(source.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw failure('io_error', `${source.field}: cannot read ${source.path}: ${code}`, error);
  }
}

/** Reads every part (all files first, so a half-rotated set is judged as a whole). */
export function readTlsMaterial(sources: TlsSources): TlsMaterial {
  const cert = readSource(sources.certificate);
  const key = readSource(sources.key);
  const ca = sources.ca ? readSource(sources.ca) : undefined;
  return { cert, key, ca };
}

export function describeSubject(certificate: X509Certificate): string {
  return certificate.subject.replaceAll('\n', ', ');
}

/**
 * Checks material before any listener sees it: a PEM certificate, a key that matches it,
 * not expired, a parseable CA bundle, and a set Node's TLS accepts as a whole. A listener
 * given bad material would drop every new connection, so nothing unchecked is ever swapped in.
 */
export function inspectTlsMaterial(material: TlsMaterial, fields: { certificate: string; key: string; ca: string } = defaultFields, now = new Date()): CertificateSummary {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(material.cert);
  } catch (error) {
    throw failure('parse_error', `${fields.certificate} is not a PEM certificate: ${(error as Error).message}`, error);
  }
  let matches: boolean;
  try {
    matches = certificate.checkPrivateKey(createPrivateKey(material.key));
  } catch (error) {
    throw failure('parse_error', `${fields.key} is not a PEM private key: ${(error as Error).message}`, error);
  }
  if (!matches) throw failure('parse_error', `${fields.key} does not match ${fields.certificate} (${describeSubject(certificate)})`);
  const expires = new Date(certificate.validTo);
  if (expires.getTime() < now.getTime()) {
    throw failure('parse_error', `${fields.certificate} (${describeSubject(certificate)}) expired on ${expires.toISOString()}`);
  }
  if (material.ca !== undefined) {
    try {
      new X509Certificate(material.ca);
    } catch (error) {
      throw failure('parse_error', `${fields.ca} is not a PEM CA bundle: ${(error as Error).message}`, error);
    }
  }
  try {
    createSecureContext({ cert: material.cert, key: material.key, ...(material.ca !== undefined ? { ca: material.ca } : {}) });
  } catch (error) {
    throw failure('parse_error', `runtime.tls: Node's TLS refused the certificate, key or CA: ${(error as Error).message}`, error);
  }
  return { subject: describeSubject(certificate), expires };
}

const defaultFields = { certificate: 'runtime.tls.certificate', key: 'runtime.tls.key', ca: 'runtime.tls.client_auth_ca' };

/** Field names as the operator wrote them (`certificate_file` when it came from a file), for messages. */
export function fieldNames(sources: TlsSources): { certificate: string; key: string; ca: string } {
  return { certificate: sources.certificate.field, key: sources.key.field, ca: sources.ca?.field ?? defaultFields.ca };
}

export function sameMaterial(a: TlsMaterial, b: TlsMaterial): boolean {
  return a.cert === b.cert && a.key === b.key && a.ca === b.ca;
}
