import * as grpc from '@grpc/grpc-js';
import { QuarryError } from '../errors/quarry-error.js';
import { formatAddress, parseListenAddress } from '../listeners/address.js';
import { grpcTlsCredentials, type GrpcTlsCredentials } from '../listeners/grpc-tls-credentials.js';
import type { TlsMaterial } from '../listeners/tls-material.js';
import { TlsService } from '../listeners/tls-service.js';
import { createFlightService, type FlightServiceOptions } from './flight-service.js';
import type { FlightStats } from './flight-stats.js';

/** The public Flight listener: the service with the runtime's auth hooks (no peer authentication). */
export interface FlightListenerOptions extends Omit<FlightServiceOptions, 'authenticate'> {
  /** `host:port`; port 0 picks a free port. */
  address: string;
  /**
   * TLS: the runtime's TLS service (reloaded on SIGHUP, client certificates per
   * client_auth_mode), or fixed material; absent means plaintext gRPC.
   */
  tls?: TlsService | TlsMaterial | undefined;
}

export interface FlightListener {
  /** The bound `host:port`. */
  readonly endpoint: string;
  /** Counters for tests and operators (batches pulled, messages in flight, ...). */
  readonly stats: FlightStats;
  /** Stops accepting calls, lets running ones end (briefly), then closes every connection. */
  close(): Promise<void>;
}

/** How long close() lets running calls finish before cutting them (drain already happened). */
const CLOSE_GRACE_MS = 2_000;

/**
 * The Arrow Flight SQL listener: a grpc-js server for `arrow.flight.protocol.FlightService`
 * whose every call is admitted through the request and auth hooks and whose queries run
 * through the same pipeline as HTTP.
 */
export async function startFlightListener(options: FlightListenerOptions): Promise<FlightListener> {
  const { host, port } = parseListenAddress(options.address, '--flight');
  const service = createFlightService(options);
  const { limits, stats } = service;
  const server = new grpc.Server(service.serverOptions);
  server.addService(service.definition, service.implementation);

  const tls: GrpcTlsCredentials | undefined = options.tls
    ? grpcTlsCredentials(options.tls instanceof TlsService ? options.tls : TlsService.fromMaterial(options.tls, 'none'))
    : undefined;
  const credentials = tls?.credentials ?? grpc.ServerCredentials.createInsecure();
  const boundPort = await new Promise<number>((resolve, reject) => {
    server.bindAsync(formatAddress(host, port), credentials, (error, bound) => {
      if (error) reject(new QuarryError('LISTENER_FAILED', `cannot listen on ${formatAddress(host, port)} (--flight): ${error.message}`, { cause: error }));
      else resolve(bound);
    });
  });
  // grpc-js drops connections until the certificate provider's first (asynchronous) delivery.
  await tls?.whenReady();
  const endpoint = formatAddress(host, boundPort);
  options.log.debug('Flight limits', {
    max_receive_message_bytes: limits.receiveMessageBytes,
    max_send_message_bytes: limits.sendMessageBytes,
    split_message_bytes: limits.splitMessageBytes,
    do_put_rate_limit: options.manifest.runtime.flight.do_put_rate_limit_enabled,
  });

  let closing: Promise<void> | undefined;
  return {
    endpoint,
    stats,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          tls?.dispose();
          service.close();
          resolve();
        };
        const timer = setTimeout(() => {
          server.forceShutdown();
          finish();
        }, CLOSE_GRACE_MS);
        timer.unref();
        server.tryShutdown(finish);
      });
      return closing;
    },
  };
}
