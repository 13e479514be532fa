import type { Logger } from '../log.js';
import type { Counter, MetricsRegistry } from '../metrics/registry.js';
import type { TlsConfig } from '../manifest/types.js';
import {
  failureReason,
  fieldNames,
  inspectTlsMaterial,
  isReloadable,
  readTlsMaterial,
  sameMaterial,
  tlsSources,
  type CertificateSummary,
  type TlsFailureReason,
  type TlsMaterial,
  type TlsSources,
} from './tls-material.js';

/** `runtime.tls.client_auth_mode`: whether listeners ask for a client certificate, and whether Flight insists on one. */
export type ClientAuthMode = 'none' | 'request' | 'required';

/** Told the new material after each successful reload; it is already validated. */
export type TlsSubscriber = (material: TlsMaterial) => void;

export type TlsReloadOutcome =
  | { readonly status: 'reloaded'; readonly summary: CertificateSummary }
  | { readonly status: 'unchanged'; readonly summary: CertificateSummary }
  /** Nothing is file-based: inline PEM is read once. */
  | { readonly status: 'inline' }
  | { readonly status: 'failed'; readonly reason: TlsFailureReason; readonly message: string };

/**
 * The TLS material every listener serves, in one place. Start-up reads and checks it (an
 * unreadable, mismatched or expired certificate stops the runtime); `reload()` (on SIGHUP)
 * re-reads the file-based parts as one set, checks the set, and only then hands it to the
 * subscribed listeners, so a bad rotation leaves the previous certificate in service.
 */
export class TlsService {
  readonly clientAuthMode: ClientAuthMode;
  readonly #sources: TlsSources | undefined;
  readonly #log: Logger | undefined;
  #reloads: Counter | undefined;
  readonly #subscribers = new Set<TlsSubscriber>();
  #material: TlsMaterial;
  #summary: CertificateSummary;

  private constructor(material: TlsMaterial, summary: CertificateSummary, clientAuthMode: ClientAuthMode, sources: TlsSources | undefined, log: Logger | undefined) {
    this.#material = material;
    this.#summary = summary;
    this.clientAuthMode = clientAuthMode;
    this.#sources = sources;
    this.#log = log;
  }

  /**
   * Reads `runtime.tls` (files relative to the manifest) and logs the certificate's subject
   * and expiry; counts reloads in `runtime_tls_reload_total`. Throws LISTENER_FAILED.
   */
  static fromConfig(tls: TlsConfig, baseDirectory: string, log: Logger, metrics?: MetricsRegistry): TlsService {
    const sources = tlsSources(tls, baseDirectory);
    const material = readTlsMaterial(sources);
    const summary = inspectTlsMaterial(material, fieldNames(sources));
    const service = new TlsService(material, summary, tls.client_auth_mode, sources, log);
    service.#reloads = metrics?.counter('runtime_tls_reload_total', { description: 'TLS reloads on SIGHUP, by result: ok, io_error (unreadable file), parse_error (bad PEM, mismatched key, expired)' });
    log.info('TLS enabled for all listeners', {
      subject: summary.subject,
      expires: summary.expires.toISOString(),
      client_auth_mode: tls.client_auth_mode,
      reload: isReloadable(sources) ? 'on SIGHUP' : 'no (inline PEM)',
    });
    return service;
  }

  /** Fixed material (tests, embedders): checked like the manifest's, never reloaded. */
  static fromMaterial(material: TlsMaterial, clientAuthMode: ClientAuthMode = material.ca === undefined ? 'none' : 'request'): TlsService {
    return new TlsService(material, inspectTlsMaterial(material), clientAuthMode, undefined, undefined);
  }

  /** The material in service now. */
  get material(): TlsMaterial {
    return this.#material;
  }

  get summary(): CertificateSummary {
    return this.#summary;
  }

  /** Whether listeners should ask clients for a certificate (request or required). */
  get requestsClientCertificate(): boolean {
    return this.clientAuthMode !== 'none';
  }

  /** True when some part comes from a file, so SIGHUP can change it. */
  get reloadable(): boolean {
    return this.#sources !== undefined && isReloadable(this.#sources);
  }

  /** Calls `subscriber` with every future material (not the current one); returns the unsubscribe. */
  subscribe(subscriber: TlsSubscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  /**
   * Re-reads file-based certificate, key and CA together. On any failure nothing changes
   * and a warning is logged; on success every subscriber gets the new set in the same
   * tick, so no handshake can see half of it.
   */
  reload(): TlsReloadOutcome {
    if (!this.#sources || !this.reloadable) {
      this.#log?.info('TLS reload: nothing to reload (the certificate, key and CA are inline PEM, read once at start-up)');
      return { status: 'inline' };
    }
    let material: TlsMaterial;
    let summary: CertificateSummary;
    try {
      material = readTlsMaterial(this.#sources);
      summary = inspectTlsMaterial(material, fieldNames(this.#sources));
    } catch (error) {
      const message = (error as Error).message;
      this.#log?.warn('TLS reload failed: the previous certificate stays in service', { error: message, subject: this.#summary.subject });
      this.#reloads?.add(1, { scope: 'public', result: failureReason(error) });
      return { status: 'failed', reason: failureReason(error), message };
    }
    this.#reloads?.add(1, { scope: 'public', result: 'ok' });
    if (sameMaterial(material, this.#material)) {
      this.#log?.info('TLS reload: files unchanged', { subject: summary.subject });
      return { status: 'unchanged', summary };
    }
    this.#material = material;
    this.#summary = summary;
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(material);
      } catch (error) {
        // A listener that cannot take the new context keeps its old one; others still switch.
        this.#log?.warn('TLS reload: a listener kept its previous certificate', { error: (error as Error).message });
      }
    }
    this.#log?.info('TLS reloaded: new connections use the new certificate', { subject: summary.subject, expires: summary.expires.toISOString() });
    return { status: 'reloaded', summary };
  }
}
