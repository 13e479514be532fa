import type { ZodType } from 'zod';
import type { FastifyInstance } from 'fastify';
import type { Hooks } from '../hooks/hooks.js';
import type { Logger } from '../log.js';
import type { Manifest, ManifestSource } from '../manifest/types.js';
import type { Phase } from '../lifecycle/phase.js';
import type { QueryRequest, QueryResult, Protocol, Principal } from '../pipeline/types.js';
import type { EngineApi } from '../engine/engine-api.js';
import type { MetricsRegistry } from '../metrics/registry.js';
import type { TlsService } from '../listeners/tls-service.js';
import type { DatasetConnector } from '../engine/sources/connector.js';
import type { RuntimeTool } from '../tools/tool-registry.js';
import type { OutboundClient } from '../outbound/client.js';
import type { PeerAuthentication } from '../pipeline/admission.js';
import type { FlightServiceParts } from '../flight/flight-service.js';
import type { HitLaneObserver } from '../http/hit-lane.js';

/** A manifest section a plugin owns: its path and the zod schema that validates and defaults it. */
export interface ManifestSlice {
  /** Dotted path: `runtime.caching`, or a top-level key such as `functions`. */
  readonly path: string;
  readonly schema: ZodType;
}

/**
 * A plugin: a name, the plugins it needs, the manifest sections it owns, and an `apply`
 * that only taps hooks and registers routes. I/O belongs in hooks (`startup`), never in
 * `apply` or a constructor.
 */
export interface QuarryPlugin {
  readonly name: string;
  /**
   * The plugin API version the plugin was written for (`PLUGIN_API_VERSION` of the `quarry` it
   * was built against; `definePlugin` fills it in). A runtime serving another version refuses
   * the plugin at start-up, naming both; a plugin without it is loaded unchecked.
   */
  readonly pluginApiVersion?: number;
  readonly dependencies?: readonly string[];
  readonly manifest?: readonly ManifestSlice[];
  apply(runtime: PluginRuntime): void | Promise<void>;
}

/**
 * A built-in plugin the runtime imports only when it is enabled, so a disabled plugin costs
 * neither its modules' loading time nor their memory. `sections` names the manifest sections
 * its plugin declares: a disabled plugin's sections are accepted as written and reported as
 * ignored (a test keeps the list equal to the loaded plugin's own).
 */
export interface LazyPlugin {
  readonly name: string;
  readonly sections: readonly string[];
  load(): Promise<QuarryPlugin>;
}

/** What a runtime's bundle holds: plugins, or built-ins loaded on demand. */
export type BundledPlugin = QuarryPlugin | LazyPlugin;

export function isLazyPlugin(plugin: BundledPlugin): plugin is LazyPlugin {
  return typeof (plugin as Partial<LazyPlugin>).load === 'function';
}

/** A user plugin module's default export: a plugin, or a factory given the entry's `params`. */
export type PluginModuleExport = QuarryPlugin | ((params: Record<string, unknown>) => QuarryPlugin | Promise<QuarryPlugin>);

/** Options of one query run by a plugin (MCP tools, refresh jobs) through the shared pipeline. */
export interface PipelineQueryOptions {
  sql: string;
  parameters?: readonly unknown[];
  protocol: Protocol;
  principal: Principal;
  signal?: AbortSignal;
}

/** A listener a plugin runs (e.g. metrics), shown in `/v1/status` beside the core's. */
export interface ListenerReport {
  readonly name: string;
  endpoint(): string;
  status(): 'Initializing' | 'Ready' | 'Disabled' | 'Error' | 'ShuttingDown';
}

/** Listen addresses from the command line (`--http`, `--flight`, `--metrics`); undefined when off. */
export interface ListenAddresses {
  readonly http: string | undefined;
  readonly flight: string | undefined;
  readonly metrics: string | undefined;
}

/**
 * Cluster flags from the command line (`--role`, `--scheduler-address`, `--node-*`,
 * `--allow-insecure-connections`). The core only carries them; the scheduler plugin acts on them.
 */
export interface ClusterNodeOptions {
  /** undefined: a single node unless the manifest has `runtime.scheduler` (which implies scheduler). */
  readonly role: 'scheduler' | 'executor' | undefined;
  readonly schedulerAddresses: readonly string[];
  readonly nodeBindAddress: string | undefined;
  readonly nodeAdvertiseAddress: string | undefined;
  readonly mtlsCaCertificateFile: string | undefined;
  readonly mtlsCertificateFile: string | undefined;
  readonly mtlsKeyFile: string | undefined;
  readonly allowInsecureConnections: boolean;
}

/** What `apply` receives: the runtime's public API for plugins. */
export interface PluginRuntime {
  readonly hooks: Hooks;
  /** A logger whose lines carry the plugin's name. */
  readonly log: Logger;
  /** The manifest; frozen once the `config` hook has run. */
  readonly manifest: Manifest;
  readonly source: ManifestSource;
  /** A plugin-owned section, validated by the plugin's own schema (undefined when absent). */
  section<T>(path: string): T | undefined;
  /** The HTTP listener, before it binds: add routes. Every route passes the core's request and auth hooks. */
  readonly http: FastifyInstance;
  /**
   * Cache hits of `POST /v1/sql` answered in front of fastify: a plugin whose fastify hooks
   * must see every response (headers, request metrics) observes these answers too.
   */
  readonly httpHitLane: { observe(observer: HitLaneObserver): void };
  readonly engine: EngineApi;
  /** Declare and record metrics in one line, e.g. `runtime.metrics.counter('results_cache_hits', {...}).add(1)`. */
  readonly metrics: MetricsRegistry;
  /** Run a query through the same pipeline as the doors (auth decisions already made by the caller). */
  query(options: PipelineQueryOptions): Promise<{ request: QueryRequest; result: QueryResult }>;
  /**
   * Asks the pipeline to start a new statement text's logical plan beside the prepare that
   * classifies it, for the texts `wanted` says the plugin will read `request.logicalPlan()` of
   * (the results cache keyed by plans): one engine round trip of latency instead of two.
   */
  planQueriesAhead(wanted: (sql: string) => boolean): void;
  readonly phase: () => Phase;
  readonly listenAddresses: ListenAddresses;
  /** Cluster flags (all unset on a single node). */
  readonly cluster: ClusterNodeOptions;
  /** The bound `host:port` of the HTTP and Flight listeners; empty strings until they listen (after `startup`). */
  boundEndpoints(): { http: string; flight: string };
  /** The TLS service every listener follows (reloads on SIGHUP); undefined when runtime.tls is off. */
  readonly tls: TlsService | undefined;
  /**
   * The Flight SQL service (the Flight listener's handlers, admission and pipeline) for a
   * plugin's own grpc-js server, e.g. the cluster node listener. `authenticate` decides each
   * caller from its connection in place of the auth hooks (that server's TLS must have
   * verified the peer). Use it from `startup` on; close the parts when that server closes.
   */
  flightService(options: { authenticate: PeerAuthentication }): Promise<FlightServiceParts>;
  /** Shows a plugin's listener in `/v1/status` (and `quarry status`). */
  reportListener(listener: ListenerReport): void;
  /** Serves datasets whose `from:` uses the connector's schemes (call in `apply`; see core/engine/sources/connector.ts). */
  registerConnector(connector: DatasetConnector): void;
  /** Tools for agents (MCP): a plugin registers what it offers (in `startup`), the MCP plugin lists them per session. */
  readonly tools: {
    register(tool: Omit<RuntimeTool, 'owner'>): void;
    list(): readonly RuntimeTool[];
  };
  /** The one client for upstream HTTP requests (timeouts, retries, the `outbound.request` hook); connectors use it. */
  readonly outbound: OutboundClient;
}
