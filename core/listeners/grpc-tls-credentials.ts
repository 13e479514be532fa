import * as grpc from '@grpc/grpc-js';
import type { TlsMaterial } from './tls-material.js';
import type { TlsService } from './tls-service.js';

type CaListener = grpc.experimental.CaCertificateUpdateListener;
type IdentityListener = grpc.experimental.IdentityCertificateUpdateListener;

/**
 * A push-based grpc-js CertificateProvider over the TLS service: the server's identity
 * (certificate and key) and, with client auth on, the CA bundle. grpc-js calls
 * `setSecureContext` on its HTTP/2 server for each update, which changes what new
 * connections see and leaves open ones alone.
 */
class PushedCertificateProvider implements grpc.experimental.CertificateProvider {
  readonly #caListeners = new Set<CaListener>();
  readonly #identityListeners = new Set<IdentityListener>();
  #material: TlsMaterial;
  #delivered = false;
  readonly #firstDelivery: Promise<void>;
  #resolveFirst!: () => void;

  constructor(material: TlsMaterial) {
    this.#material = material;
    this.#firstDelivery = new Promise((resolve) => (this.#resolveFirst = resolve));
  }

  /** Resolves once grpc-js has received the material at least once (before that it drops connections). */
  whenDelivered(): Promise<void> {
    return this.#firstDelivery;
  }

  push(material: TlsMaterial): void {
    this.#material = material;
    // Both updates in the same tick: no handshake runs between them, so none sees a new certificate with an old CA.
    for (const listener of this.#caListeners) listener(this.#caUpdate());
    for (const listener of this.#identityListeners) listener(this.#identityUpdate());
  }

  #caUpdate(): grpc.experimental.CaCertificateUpdate | null {
    return this.#material.ca === undefined ? null : { caCertificate: Buffer.from(this.#material.ca) };
  }

  #identityUpdate(): grpc.experimental.IdentityCertificateUpdate {
    return { certificate: Buffer.from(this.#material.cert), privateKey: Buffer.from(this.#material.key) };
  }

  // grpc-js registers its watcher only after add*Listener returns: the current value must
  // arrive asynchronously, or the server never gets credentials (stack notes §3).
  addCaCertificateListener(listener: CaListener): void {
    this.#caListeners.add(listener);
    process.nextTick(() => {
      if (this.#caListeners.has(listener)) listener(this.#caUpdate());
    });
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.#caListeners.delete(listener);
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.#identityListeners.add(listener);
    process.nextTick(() => {
      if (!this.#identityListeners.has(listener)) return;
      listener(this.#identityUpdate());
      if (!this.#delivered) {
        this.#delivered = true;
        this.#resolveFirst();
      }
    });
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.#identityListeners.delete(listener);
  }
}

export interface GrpcTlsCredentials {
  readonly credentials: grpc.ServerCredentials;
  /** Await after bindAsync: connections arriving before the first delivery are dropped by grpc-js. */
  whenReady(): Promise<void>;
  /** Stops following reloads (the server is closing). */
  dispose(): void;
}

/**
 * Server credentials for the Flight listener that follow the TLS service: `none` asks no
 * client certificate, `request` asks and admits connections without one, `required`
 * rejects connections without a valid one at the handshake.
 */
export function grpcTlsCredentials(service: TlsService): GrpcTlsCredentials {
  const provider = new PushedCertificateProvider(service.material);
  const unsubscribe = service.subscribe((material) => provider.push(material));
  // grpc-js passes its first argument on as the *identity* provider (stack notes §3), and
  // asks for client certificates exactly when the second (CA) provider is not null. One
  // provider serving both roles keeps the order bug harmless.
  const credentials = grpc.experimental.createCertificateProviderServerCredentials(
    provider,
    service.requestsClientCertificate ? provider : null,
    service.clientAuthMode === 'required',
  );
  return { credentials, whenReady: () => provider.whenDelivered(), dispose: unsubscribe };
}
