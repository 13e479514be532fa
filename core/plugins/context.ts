import type { FastifyInstance } from 'fastify';
import { QuarryError } from '../errors/quarry-error.js';
import type { Hooks } from '../hooks/hooks.js';
import type { Logger } from '../log.js';
import type { Engine } from '../engine/engine.js';
import type { Phase } from '../lifecycle/phase.js';
import type { Manifest, ManifestSource } from '../manifest/types.js';
import type { QueryPipeline } from '../pipeline/pipeline.js';
import type { ClusterNodeOptions, ListenAddresses, ListenerReport, PluginRuntime } from './types.js';
import type { MetricsRegistry } from '../metrics/registry.js';
import type { TlsService } from '../listeners/tls-service.js';
import type { ConnectorRegistry } from '../engine/sources/connector-registry.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import type { OutboundClient } from '../outbound/client.js';
import type { PeerAuthentication } from '../pipeline/admission.js';
import type { HitLane } from '../http/hit-lane.js';
import type { FlightServiceParts } from '../flight/flight-service.js';

/** What the runtime lends the plugin contexts; engine and pipeline exist only after start-up. */
export interface PluginHost {
  readonly hooks: Hooks;
  readonly log: Logger;
  readonly http: FastifyInstance;
  readonly httpHitLane: Pick<HitLane, 'observe'>;
  readonly source: ManifestSource;
  readonly metrics: MetricsRegistry;
  readonly listenAddresses: ListenAddresses;
  readonly cluster: ClusterNodeOptions;
  boundEndpoints(): { http: string; flight: string };
  readonly tls: TlsService | undefined;
  reportListener(listener: ListenerReport): void;
  /** Undefined before the pipeline exists (start-up). */
  flightService(options: { authenticate: PeerAuthentication }): Promise<FlightServiceParts> | undefined;
  readonly connectors: ConnectorRegistry;
  readonly tools: ToolRegistry;
  readonly outbound: OutboundClient;
  manifest(): Manifest;
  engine(): Engine | undefined;
  pipeline(): QueryPipeline | undefined;
  planQueriesAhead(wanted: (sql: string) => boolean): void;
  phase(): Phase;
}

function readPath(root: unknown, dotted: string): unknown {
  let node = root;
  for (const key of dotted.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The public runtime API one plugin sees: its own logger scope, everything else shared. */
export function createPluginRuntime(host: PluginHost, pluginName: string): PluginRuntime {
  const notYet = (what: string) =>
    new QuarryError('PLUGIN_FAILED', `plugin "${pluginName}" used runtime.${what} before start-up finished: use it inside a hook (e.g. hooks.startup)`);
  return {
    hooks: host.hooks,
    log: host.log.child(pluginName),
    get manifest() {
      return host.manifest();
    },
    source: host.source,
    section: <T>(dotted: string) => readPath(host.manifest(), dotted) as T | undefined,
    http: host.http,
    httpHitLane: { observe: (observer) => host.httpHitLane.observe(observer) },
    metrics: host.metrics,
    get engine() {
      const engine = host.engine();
      if (!engine) throw notYet('engine');
      return engine;
    },
    query: async (options) => {
      const pipeline = host.pipeline();
      if (!pipeline) throw notYet('query');
      return pipeline.execute(options);
    },
    planQueriesAhead: (wanted) => host.planQueriesAhead(wanted),
    phase: () => host.phase(),
    listenAddresses: host.listenAddresses,
    cluster: host.cluster,
    boundEndpoints: () => host.boundEndpoints(),
    tls: host.tls,
    reportListener: (listener) => host.reportListener(listener),
    flightService: async (options) => {
      const service = host.flightService(options);
      if (!service) throw notYet('flightService');
      return service;
    },
    registerConnector: (connector) => host.connectors.register(connector, `plugin "${pluginName}"`),
    tools: {
      register: (tool) => host.tools.register({ ...tool, owner: pluginName, call: tool.call.bind(tool) }),
      list: () => host.tools.list(),
    },
    outbound: host.outbound,
  };
}
