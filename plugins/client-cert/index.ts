import { QuarryError } from '../../core/errors/quarry-error.js';
import { STAGE } from '../../core/hooks/stages.js';
import type { ClientAuthMode } from '../../core/listeners/tls-service.js';
import type { InboundRequest } from '../../core/pipeline/types.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import './errors.js';

export const CLIENT_CERT_PLUGIN_NAME = 'client-cert';

/** The doors whose listeners ask for client certificates; a metrics listener has no client-auth gate. */
const GATED_PROTOCOLS: ReadonlySet<InboundRequest['protocol']> = new Set(['http', 'flight']);

/**
 * The client-certificate scheme, run before API keys (STAGE.TRANSPORT). The listeners
 * only ask for and verify certificates; this decides per request:
 * - `request`: a certificate that was presented but did not verify is refused;
 * - `required`: no verified certificate, no access (public routes never get here);
 * - a verified certificate names the caller (`cert:<subject>`, may write). When API keys
 *   are on, the api-key plugin runs next and replaces that identity with the key's, so
 *   the certificate is an additional requirement, not a replacement.
 */
export function clientCertificateScheme(mode: Exclude<ClientAuthMode, 'none'>): (request: InboundRequest) => QuarryError | undefined {
  return (request) => {
    if (!GATED_PROTOCOLS.has(request.protocol)) return undefined;
    const peer = request.tls;
    if (peer?.authorized && peer.subject !== undefined) {
      request.principal = { id: `cert:${peer.subject}`, method: 'client-certificate', canWrite: true };
      return undefined;
    }
    // A certificate was shown and did not verify (HTTP can tell; grpc-js hides such certificates).
    if (peer?.subject !== undefined) {
      const why = peer.authorizationError ? ` (${peer.authorizationError})` : '';
      return new QuarryError('CLIENT_CERTIFICATE_INVALID', `client certificate ${peer.subject} does not verify against the configured CA${why}`);
    }
    if (mode === 'required') {
      return new QuarryError('CLIENT_CERTIFICATE_REQUIRED', 'client certificate required: connect with a certificate issued by the CA in runtime.tls.client_auth_ca_file / client_auth_ca');
    }
    return undefined;
  };
}

/**
 * Client-certificate (mTLS) policy for `runtime.tls.client_auth_mode` `request` and
 * `required`. Listener-level TLS (asking for the certificate, the CA, Flight's handshake
 * rejection in `required`) is the core's; this plugin owns what a request may do with it.
 */
export function createClientCertPlugin(): QuarryPlugin {
  return {
    name: CLIENT_CERT_PLUGIN_NAME,
    apply(runtime) {
      const tls = runtime.manifest.runtime.tls;
      if (!tls?.enabled || tls.client_auth_mode === 'none') return;
      runtime.hooks.auth.tap({ name: CLIENT_CERT_PLUGIN_NAME, stage: STAGE.TRANSPORT }, clientCertificateScheme(tls.client_auth_mode));
      runtime.log.info('client certificates checked', { client_auth_mode: tls.client_auth_mode });
    },
  };
}
