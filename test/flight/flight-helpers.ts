import { rmSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { createLogger } from '../../core/log.js';
import { PhaseMachine } from '../../core/lifecycle/phase.js';
import { startFlightListener, type FlightListener } from '../../core/flight/listener.js';
import { FlightSqlClient } from '../../core/flight/client/flight-sql-client.js';
import { startRuntime, type RuntimeSetup, type TestRuntime } from '../helpers/runtime.js';

export interface FlightTestContext extends TestRuntime {
  client: FlightSqlClient;
  /** A client factory for extra connections (other credentials, raw calls). */
  connect(options?: { token?: string; headers?: Record<string, string>; flowControlWindowBytes?: number }): FlightSqlClient;
  /** Set with `ownListener`: a listener built by the test, whose counters it can read. */
  listener: FlightListener | undefined;
}

/**
 * Starts a runtime with its Flight listener on a free loopback port (`ownListener`: a
 * second listener the test builds around the runtime's pipeline, to read its counters),
 * hands a connected client to the body, and always stops everything.
 */
export async function withFlight(
  t: ExecutionContext,
  setup: RuntimeSetup & { ownListener?: boolean; tls?: { cert: string; key: string } },
  body: (context: FlightTestContext) => Promise<void>,
): Promise<void> {
  const context = await startRuntime({ ...setup, flight: !setup.ownListener });
  let listener: FlightListener | undefined;
  const clients: FlightSqlClient[] = [];
  try {
    if (setup.ownListener) {
      const phase = new PhaseMachine();
      phase.moveTo('starting');
      phase.moveTo('running');
      listener = await startFlightListener({
        address: '127.0.0.1:0',
        hooks: context.runtime.hooks,
        pipeline: context.runtime.pipeline,
        engine: context.runtime.engine,
        manifest: context.runtime.manifest,
        log: createLogger({ level: 'info', sink: () => undefined }),
        phase,
        tls: setup.tls,
      });
    }
    const endpoint = listener?.endpoint ?? context.runtime.flightEndpoint;
    const connect = (options: { token?: string; headers?: Record<string, string>; flowControlWindowBytes?: number } = {}) => {
      const client = setup.tls
        ? FlightSqlClient.connect({ endpoint: `grpc+tls://${endpoint}`, rootCertificates: setup.tls.cert, ...options })
        : FlightSqlClient.connect({ endpoint: `grpc://${endpoint}`, ...options });
      clients.push(client);
      return client;
    };
    await body({ ...context, client: connect(), connect, listener });
  } finally {
    for (const client of clients) client.close();
    await listener?.close();
    await context.runtime.stop();
    rmSync(context.directory, { recursive: true, force: true });
    t.log('runtime stopped');
  }
}

/** Rejects with the gRPC error a call fails with (ava's throwsAsync drops extra fields). */
export async function grpcError(promise: Promise<unknown>): Promise<{ code: number; details: string; metadata: { get(name: string): unknown[] } }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; details: string; metadata: { get(name: string): unknown[] } };
  }
  throw new Error('the call succeeded, a gRPC error was expected');
}
