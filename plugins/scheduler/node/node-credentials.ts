import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { QuarryError } from '../../../core/errors/quarry-error.js';
import type { ClusterNodeOptions } from '../../../core/plugins/types.js';
import '../errors.js';

/** PEM material of a node: its certificate and key, and the CA every peer's certificate must chain to. */
export interface NodeTlsMaterial {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

const FLAGS = ['--node-mtls-ca-certificate-file', '--node-mtls-certificate-file', '--node-mtls-key-file'] as const;

/**
 * Node-to-node traffic is mutually authenticated TLS: all three files, or none of them with
 * `--allow-insecure-connections` (plaintext, for development on one machine). Undefined means
 * plaintext was explicitly allowed.
 */
export function nodeTlsMaterial(options: ClusterNodeOptions): NodeTlsMaterial | undefined {
  const files = [options.mtlsCaCertificateFile, options.mtlsCertificateFile, options.mtlsKeyFile];
  const given = files.filter((file) => file !== undefined).length;
  if (given === 0) {
    if (options.allowInsecureConnections) return undefined;
    throw new QuarryError('CLUSTER_CONFIG_INVALID', `node-to-node connections are mutually authenticated TLS: pass ${FLAGS.join(', ')} (PEM files), or --allow-insecure-connections for plaintext on a trusted development network`);
  }
  if (given < 3) {
    const missing = FLAGS.filter((_, index) => files[index] === undefined);
    throw new QuarryError('CLUSTER_CONFIG_INVALID', `node mTLS needs all of ${FLAGS.join(', ')}; missing ${missing.join(', ')}`);
  }
  const read = (file: string, flag: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new QuarryError('CLUSTER_CONFIG_INVALID', `${flag} ${file} cannot be read: ${(error as Error).message}`);
    }
  };
  return { ca: read(files[0]!, FLAGS[0]), cert: read(files[1]!, FLAGS[1]), key: read(files[2]!, FLAGS[2]) };
}

/** A node listener requires and verifies a client certificate from every peer. */
export function nodeServerCredentials(material: NodeTlsMaterial | undefined): grpc.ServerCredentials {
  if (material === undefined) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(material.ca, [{ cert_chain: material.cert, private_key: material.key }], true);
}

/** A node presents its certificate and verifies the peer's against the node CA. */
export function nodeChannelCredentials(material: NodeTlsMaterial | undefined): grpc.ChannelCredentials {
  if (material === undefined) return grpc.credentials.createInsecure();
  return grpc.credentials.createSsl(material.ca, material.key, material.cert);
}
