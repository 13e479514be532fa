import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { PeerAuthentication } from '../../../core/pipeline/admission.js';
import type { NodeTlsMaterial } from './node-credentials.js';
import '../errors.js';

/**
 * Who calls an executor's node listener: a cluster peer. Its certificate, verified against
 * the node CA during the TLS handshake (a peer without one never gets a call through), is the
 * authentication; the peer reads and writes as the cluster (scan legs, routed writes), so API
 * keys, which guard the public listeners, do not apply here. With plaintext explicitly
 * allowed (`--allow-insecure-connections`) every peer on the network is trusted.
 */
export function nodePeerAuthentication(tls: NodeTlsMaterial | undefined): PeerAuthentication {
  return (inbound) => {
    if (tls === undefined) return { id: 'node:insecure', method: 'cluster-node', canWrite: true };
    if (inbound.tls?.authorized && inbound.tls.subject !== undefined) return { id: `node:${inbound.tls.subject}`, method: 'cluster-node', canWrite: true };
    return new QuarryError('CLUSTER_NODE_UNAUTHENTICATED', 'the node listener serves cluster peers only: connect with a node certificate signed by the node CA (--node-mtls-*)');
  };
}
