import type * as grpc from '@grpc/grpc-js';
import type { Engine } from '../engine/engine.js';
import { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { PhaseMachine } from '../lifecycle/phase.js';
import type { Logger } from '../log.js';
import type { Manifest } from '../manifest/types.js';
import type { QueryPipeline } from '../pipeline/pipeline.js';
import type { PeerAuthentication } from '../pipeline/admission.js';
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
import { flightLimits, type FlightLimits } from './limits.js';
import { DatasetCatalog } from './metadata/dataset-catalog.js';
import { RunningStatements } from './running-statements.js';
import { StatementStore } from './statement-store.js';

export interface FlightServiceOptions {
  hooks: Hooks;
  pipeline: QueryPipeline;
  engine: Engine;
  manifest: Manifest;
  log: Logger;
  phase: PhaseMachine;
  /**
   * Who calls, decided from the connection instead of `hooks.auth` (a listener whose TLS
   * layer already authenticated every peer, e.g. a cluster node listener). Absent: the auth hooks.
   */
  authenticate?: PeerAuthentication | undefined;
}

/** The Flight SQL service, ready to add to a grpc-js server (`server.addService(definition, implementation)`). */
export interface FlightServiceParts {
  readonly definition: grpc.ServiceDefinition;
  readonly implementation: grpc.UntypedServiceImplementation;
  /** Message size limits (runtime.flight) the server hosting the service must be created with. */
  readonly serverOptions: grpc.ServerOptions;
  readonly limits: FlightLimits;
  readonly stats: FlightStats;
  /** Releases the prepared statements it holds; call when the hosting server closes. */
  close(): void;
}

/**
 * The Flight SQL service, independent of the server that hosts it: the core's Flight listener
 * hosts one, and a plugin may host another on its own listener (the cluster node listener).
 */
export function createFlightService(options: FlightServiceOptions): FlightServiceParts {
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
    authenticate: options.authenticate,
  };
  const implementation: grpc.UntypedServiceImplementation = {
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
  };
  return {
    definition: grpcServiceDefinition(FlightService),
    implementation,
    serverOptions: {
      'grpc.max_receive_message_length': limits.receiveMessageBytes,
      'grpc.max_send_message_length': limits.sendMessageBytes,
    },
    limits,
    stats,
    close: () => statements.close(),
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
