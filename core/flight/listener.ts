import * as grpc from '@grpc/grpc-js';
import type { Engine } from '../engine/engine.js';
import { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { PhaseMachine } from '../lifecycle/phase.js';
import { formatAddress, parseListenAddress } from '../listeners/address.js';
import { grpcTlsCredentials, type GrpcTlsCredentials } from '../listeners/grpc-tls-credentials.js';
import type { TlsMaterial } from '../listeners/tls-material.js';
import { TlsService } from '../listeners/tls-service.js';
import type { Logger } from '../log.js';
import type { Manifest } from '../manifest/types.js';
import type { QueryPipeline } from '../pipeline/pipeline.js';
import { unary } from './call-handlers.js';
import { DoPutRateLimiter } from './do-put-rate-limit.js';
import type { FlightContext } from './flight-context.js';
import { FlightStats } from './flight-stats.js';
import { FlightService } from './generated/arrow/flight/protocol/flight_pb.js';
import { grpcServiceDefinition } from './grpc-service-definition.js';
import { doActionHandler, listActionsHandler } from './handlers/do-action.js';
import { doGetHandler } from './handlers/do-get.js';
import { doPutHandler } from './handlers/do-put.js';
import { getFlightInfoHandler, getSchemaHandler, listFlightsHandler, pollFlightInfoHandler } from './handlers/flight-info.js';
import { handshakeHandler } from './handlers/handshake.js';
import { flightLimits } from './limits.js';
import { DatasetCatalog } from './metadata/dataset-catalog.js';
import { RunningStatements } from './running-statements.js';
import { StatementStore } from './statement-store.js';

export interface FlightListenerOptions {
  /** `host:port`; port 0 picks a free port. */
  address: string;
  hooks: Hooks;
  pipeline: QueryPipeline;
  engine: Engine;
  manifest: Manifest;
  log: Logger;
  phase: PhaseMachine;
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
  const limits = flightLimits(options.manifest);
  const stats = new FlightStats();
  const statements = new StatementStore();
  const context: FlightContext = {
    hooks: options.hooks,
    pipeline: options.pipeline,
    engine: options.engine,
    manifest: options.manifest,
    log: options.log,
    phase: options.phase,
    statements,
    running: new RunningStatements(),
    catalog: new DatasetCatalog(options.engine),
    limits,
    rateLimiter: options.manifest.runtime.flight.do_put_rate_limit_enabled ? new DoPutRateLimiter() : undefined,
    stats,
  };

  const server = new grpc.Server({
    'grpc.max_receive_message_length': limits.receiveMessageBytes,
    'grpc.max_send_message_length': limits.sendMessageBytes,
  });
  server.addService(grpcServiceDefinition(FlightService), {
    Handshake: handshakeHandler(context),
    ListFlights: listFlightsHandler(context),
    GetFlightInfo: getFlightInfoHandler(context),
    PollFlightInfo: pollFlightInfoHandler(context),
    GetSchema: getSchemaHandler(context),
    DoGet: doGetHandler(context),
    DoPut: doPutHandler(context),
    DoExchange: doExchangeHandler(context),
    DoAction: doActionHandler(context),
    ListActions: listActionsHandler(context),
  });

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
    do_put_rate_limit: context.rateLimiter !== undefined,
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
          statements.close();
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

/** DoExchange is not part of Flight SQL; answered UNIMPLEMENTED after admission like any call. */
function doExchangeHandler(context: FlightContext) {
  const refuse = unary<unknown, unknown>(context, 'DoExchange', async () => {
    throw new QuarryError('FLIGHT_COMMAND_UNSUPPORTED', 'DoExchange is not supported: use DoGet to read and DoPut to write');
  });
  return (call: grpc.ServerDuplexStream<unknown, unknown>) => {
    refuse(Object.assign(call, { request: undefined }) as unknown as grpc.ServerUnaryCall<unknown, unknown>, (error) => {
      if (error) call.emit('error', error);
      else call.end();
    });
  };
}
