import type { FastifyInstance } from 'fastify';
import { Engine } from './engine/engine.js';
import { QuarryError, toQuarryError } from './errors/quarry-error.js';
import { createHooks, type Hooks } from './hooks/hooks.js';
import type { TapTiming } from './hooks/guard.js';
import { STAGE } from './hooks/stages.js';
import { createHttpServer, listenHttp } from './http/server.js';
import type { HitLane } from './http/hit-lane.js';
import type { ListenerState, ListenerStatus, RouteContext } from './http/routes/context.js';
import { registerDatasetRoutes } from './http/routes/datasets.js';
import { registerProbeRoutes } from './http/routes/probes.js';
import { registerSqlRoute } from './http/routes/sql.js';
import { registerStatusRoute } from './http/routes/status.js';
import { PhaseMachine, type Phase } from './lifecycle/phase.js';
import { parseListenAddress } from './listeners/address.js';
import { TlsService, type TlsReloadOutcome } from './listeners/tls-service.js';
import type { FlightListener } from './flight/listener.js';
import type { Logger } from './log.js';
import type { Manifest, ManifestSource } from './manifest/types.js';
import { createPluginRuntime } from './plugins/context.js';
import { OutboundClient } from './outbound/client.js';
import type { ClusterNodeOptions, ListenerReport, QuarryPlugin } from './plugins/types.js';
import { QueryPipeline } from './pipeline/pipeline.js';
import type { PeerAuthentication } from './pipeline/admission.js';
import { deepFreeze } from './text/deep-freeze.js';
import { MetricsRegistry } from './metrics/registry.js';
import { ConnectorRegistry } from './engine/sources/connector-registry.js';
import { ToolRegistry } from './tools/tool-registry.js';
import { fileConnector } from './engine/sources/file-source.js';
import type { ManifestProblem } from './manifest/issues.js';
import type { DatasetSource } from './engine/sources/connector.js';
import type { BindingReport } from './engine/check/binding-check.js';

export interface RuntimeOptions {
  manifest: Manifest;
  source: ManifestSource;
  plugins: readonly QuarryPlugin[];
  log: Logger;
  /** HTTP listen address (`--http`), default 127.0.0.1:8090; port 0 picks a free port. */
  http?: string;
  /** Flight SQL listen address (`--flight`), default 127.0.0.1:50051; `false` serves no Flight. */
  flight?: string | false;
  /** Metrics listen address (`--metrics`); off unless given. Served by the telemetry plugin. */
  metrics?: string;
  /** Cluster flags (`--role`, `--scheduler-address`, `--node-*`); a single node when absent. */
  cluster?: ClusterNodeOptions;
}

const SINGLE_NODE: ClusterNodeOptions = {
  role: undefined,
  schedulerAddresses: [],
  nodeBindAddress: undefined,
  nodeAdvertiseAddress: undefined,
  mtlsCaCertificateFile: undefined,
  mtlsCertificateFile: undefined,
  mtlsKeyFile: undefined,
  allowInsecureConnections: false,
};

/**
 * The runtime: hooks, plugins, engine, pipeline and listeners, moved through explicit
 * phases. `start()` resolves once listeners are bound (datasets may still be loading:
 * `/v1/ready` tells); `stop()` drains then releases in reverse order.
 */
export class Runtime {
  /**
   * -vv (very_verbose): how long each plugin's tap took, per hook call. `enabled` is a plain
   * field set once the log is known (in the constructor): the guard reads it on every tap of
   * every query, and a getter asking the log each time cost the hit lane about 2 us.
   */
  readonly #tapTiming: { enabled: boolean } & TapTiming = {
    enabled: false,
    record: (hook, plugin, ms, failed) => this.log.trace('hook', { hook, plugin, ms: ms.toFixed(3), ...(failed ? { failed: true } : {}) }),
  };
  readonly hooks: Hooks = createHooks(this.#tapTiming);
  readonly log: Logger;
  readonly source: ManifestSource;
  readonly http: FastifyInstance;
  /** Cache hits of `/v1/sql`, answered in front of fastify. */
  readonly httpHitLane: HitLane;
  /** Every metric of the runtime and its plugins; the telemetry plugin exports it. */
  readonly metrics = new MetricsRegistry();
  /** Dataset connectors by `from:` scheme; plugins add theirs in `apply`. */
  readonly connectors = new ConnectorRegistry();
  /** Tools plugins offer to agents; the MCP plugin exposes them. */
  readonly tools = new ToolRegistry();
  /** The one client for upstream HTTP requests; every attempt passes `hooks.outbound.request`. */
  readonly outbound: OutboundClient;
  readonly #phase = new PhaseMachine();
  readonly #options: RuntimeOptions;
  #manifest: Manifest;
  #engine: Engine | undefined;
  #pipeline: QueryPipeline | undefined;
  /** Which new texts a plugin wants planned beside their prepares (see PluginRuntime.planQueriesAhead). */
  #planAhead: ((sql: string) => boolean) | undefined;
  #httpEndpoint = '';
  #flight: FlightListener | undefined;
  readonly #pluginListeners: ListenerReport[] = [];
  readonly #tls: TlsService | undefined;
  #registered = false;
  /** Whether `runtime ready` was logged (once: when /v1/ready first answers 200). */
  #readyLogged = false;
  #loading: Promise<void> | undefined;
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  /** Aborted by a stop during start-up: start-up ends at its next step, and its waits (mirrors, sources' columns) end. */
  readonly #startAbort = new AbortController();

  constructor(options: RuntimeOptions) {
    this.#options = options;
    this.#manifest = options.manifest;
    this.connectors.register(fileConnector, 'the core');
    this.source = options.source;
    this.log = options.log;
    this.#tapTiming.enabled = this.log.isEnabled('trace');
    this.outbound = new OutboundClient({ hooks: this.hooks, log: options.log.child('outbound') });
    const tls = options.manifest.runtime.tls;
    this.#tls = tls?.enabled ? TlsService.fromConfig(tls, options.source.directory, options.log.child('tls'), this.metrics) : undefined;
    const { app, lane } = createHttpServer({ hooks: this.hooks, phase: this.#phase, log: options.log.child('http'), tls: this.#tls });
    this.http = app;
    this.httpHitLane = lane;
    const routes = this.#routeContext();
    registerProbeRoutes(this.http, routes);
    registerStatusRoute(this.http, routes);
    registerDatasetRoutes(this.http, routes);
    registerSqlRoute(this.http, routes, this.httpHitLane);
  }

  get manifest(): Manifest {
    return this.#manifest;
  }

  get phase(): Phase {
    return this.#phase.current;
  }

  get engine(): Engine {
    if (!this.#engine) throw new QuarryError('RUNTIME_NOT_READY', 'the engine has not started');
    return this.#engine;
  }

  get pipeline(): QueryPipeline {
    if (!this.#pipeline) throw new QuarryError('RUNTIME_NOT_READY', 'the runtime has not started');
    return this.#pipeline;
  }

  /** The bound HTTP address (`host:port`), once started. */
  get httpEndpoint(): string {
    return this.#httpEndpoint;
  }

  /** The bound Flight SQL address (`host:port`), once started; empty when Flight is off. */
  get flightEndpoint(): string {
    return this.#flight?.endpoint ?? '';
  }

  /** The TLS service every listener follows (undefined when runtime.tls is off): a metrics listener subscribes to it too. */
  get tls(): TlsService | undefined {
    return this.#tls;
  }

  /** Re-reads file-based TLS material (quarryd: on SIGHUP); on failure the previous certificate stays (docs/tls.md). */
  reloadTls(): TlsReloadOutcome | undefined {
    if (!this.#tls) this.log.info('TLS reload requested, but TLS is not enabled (runtime.tls.enabled): nothing to reload');
    return this.#tls?.reload();
  }

  /** Resolves when every accelerated dataset has loaded (or failed), and every dataset registered after start-up has registered (or failed once). */
  whenLoaded(): Promise<void> {
    return this.#loading ?? Promise.resolve();
  }

  /**
   * Ready per runtime.ready_state: every dataset registered (`on_registration`; one still
   * waiting for its source's columns is not) or every dataset loaded (`on_load`).
   */
  isReady(): boolean {
    if (this.#phase.current !== 'running' || !this.#registered) return false;
    if (this.#manifest.runtime.ready_state === 'on_registration') return !this.engine.registrationPending();
    return this.engine.datasets().every((dataset) => dataset.state === 'ready' || dataset.state === 'refreshing');
  }

  /** `runtime ready` exactly once, when /v1/ready first answers 200 (a lifecycle line is written when the state changes). */
  #logReadyOnce(): void {
    if (this.#readyLogged || !this.isReady()) return;
    this.#readyLogged = true;
    this.log.info('runtime ready', { ready_state: this.#manifest.runtime.ready_state });
  }

  /** When the start-up loads have settled: readiness (on_load), or how the loads went (on_registration, ready before). */
  #logLoaded(): void {
    const failed = this.engine.datasets().filter((dataset) => dataset.state === 'error').map((dataset) => dataset.name);
    const wasReady = this.#readyLogged;
    this.#logReadyOnce();
    if (this.#readyLogged) {
      if (wasReady) this.log.info(failed.length === 0 ? 'datasets loaded' : 'datasets loaded; some failed (see GET /v1/datasets)', failed.length === 0 ? {} : { failed: failed.join(',') });
      return;
    }
    this.log.info('datasets loaded; some failed, so the runtime is not ready (see GET /v1/datasets)', { failed: failed.join(',') });
  }

  listeners(): ListenerStatus[] {
    const running = this.#phase.current === 'running';
    const state: ListenerState = running ? 'Ready' : this.#phase.current === 'draining' || this.#phase.current === 'stopped' ? 'ShuttingDown' : 'Initializing';
    const listeners: ListenerStatus[] = [
      { name: 'http', endpoint: this.#httpEndpoint, status: state },
      this.#flight ? { name: 'flight', endpoint: this.#flight.endpoint, status: state } : { name: 'flight', endpoint: 'N/A', status: 'Disabled' },
      ...this.#pluginListeners.map((listener) => ({ name: listener.name, endpoint: listener.endpoint(), status: listener.status() })),
    ];
    if (!listeners.some((listener) => listener.name === 'metrics')) listeners.push({ name: 'metrics', endpoint: 'N/A', status: 'Disabled' });
    return listeners;
  }

  /**
   * Applies plugins, starts the engine, registers datasets and binds the listeners. A `stop()`
   * meanwhile ends start-up at its next step (this then resolves; `stop()` releases what was started).
   */
  start(): Promise<void> {
    const starting = this.#start();
    this.#starting ??= starting;
    return starting;
  }

  async #start(): Promise<void> {
    this.#phase.moveTo('starting');
    const abandoned = () => this.#startAbort.signal.aborted;
    // The Flight server's modules (grpc-js, the protobuf descriptors, the handlers: a quarter
    // of start-up's module loading) are imported here, not with this module, so they load
    // while plugins apply, the engine starts and datasets register.
    const flightModule = this.#options.flight === false ? undefined : import('./flight/listener.js');
    flightModule?.catch(() => undefined); // a failure surfaces where it is awaited
    try {
      await this.#applyPlugins();
      this.#manifest = deepFreeze(await this.hooks.config.promise(this.#manifest));
      if (abandoned()) return;
      this.#engine = await Engine.create({
        manifest: this.#manifest,
        source: this.source,
        log: this.log.child('engine'),
        connectors: this.connectors,
        onDatasetLoaded: (event) => {
          // A load or retry that completes what readiness waits for: say so when it happens.
          if (this.#phase.current === 'running') this.#logReadyOnce();
          this.hooks.datasets.loaded.promise(event).catch((error: Error) => this.log.error('a datasets.loaded tap failed', { error: error.message }));
        },
        onDatasetRegistered: (dataset, kind) => {
          if (this.#phase.current === 'running') this.#logReadyOnce();
          this.hooks.datasets.registered.promise({ dataset, kind }).catch((error: Error) => this.log.error('a datasets.registered tap failed', { dataset, error: error.message }));
        },
        onDatasetChanged: (dataset, reason) => this.hooks.cache.invalidate.promise({ datasets: [dataset.toLowerCase()], reason }),
      });
      this.#pipeline = new QueryPipeline({ hooks: this.hooks, engine: this.#engine, phase: this.#phase, log: this.log.child('query'), maxSqlLength: this.#manifest.runtime.query.max_sql_length });
      this.#pipeline.planAhead = this.#planAhead;
      this.hooks.shutdown.stop.tapPromise({ name: 'core:engine', stage: STAGE.STOP_ENGINE }, async () => this.#engine?.close());
      if (abandoned()) return;
      await this.hooks.startup.promise();
      if (abandoned()) return;
      // Sources slow to give their columns do not hold the listeners back: those datasets
      // register in the background (core/engine/datasets.ts).
      await this.#engine.registerDatasets(this.#startAbort.signal);
      if (abandoned()) return;
      this.#registered = true;
      // Accelerated datasets load (on DuckDB's threads) while the listeners bind and the Flight
      // modules finish loading (on this one): start-up overlaps the two instead of adding them.
      const loaded = this.#engine.loadDatasets();
      loaded.catch(() => undefined); // awaited below once the listeners are up
      await this.#listenHttp();
      if (abandoned()) return;
      await this.#listenFlight(flightModule);
      if (abandoned()) return;
      this.#phase.moveTo('running');
      // With ready_state: on_registration /v1/ready answers 200 from here on: say so now, not after the loads.
      this.#logReadyOnce();
      this.#loading = loaded.then(
        () => this.#logLoaded(),
        // A stop while loads were starting closes the engine under them: nothing to report then.
        (error: unknown) => {
          if (this.#phase.current === 'running') this.log.error('loading datasets failed', { error: toQuarryError(error).message });
        },
      );
    } catch (error) {
      // Stopped during start-up: what failed was cut short by the stop, which releases the rest.
      if (abandoned()) return;
      this.#phase.moveTo('failed');
      await this.#release();
      throw toQuarryError(error);
    }
  }

  /**
   * For `quarryd --check`: applies the plugins (so their connectors are registered) and
   * resolves every dataset's source as start-up would, without the network (connectors
   * validate their params and local paths there), collecting every problem. Nothing starts.
   */
  async checkSources(): Promise<BindingReport> {
    await this.#applyPlugins();
    const problems: ManifestProblem[] = [];
    const sources = new Map<number, DatasetSource>();
    try {
      for (const [index, dataset] of this.#manifest.datasets.entries()) {
        try {
          sources.set(index, await this.connectors.resolve(dataset, { baseDirectory: this.source.directory, log: this.log.child('check') }));
        } catch (error) {
          problems.push({ path: `datasets[${index}].from`, message: toQuarryError(error).message });
        }
      }
      // Then the SQL and columns that read the sources whose columns are local.
      const { bindingProblems } = await import('./engine/check/binding-check.js');
      const binding = await bindingProblems(this.#manifest, sources, (check) => this.hooks.check.promise(check));
      return { problems: [...problems, ...binding.problems], unchecked: binding.unchecked };
    } finally {
      for (const source of sources.values()) await source.close?.();
    }
  }

  async #applyPlugins(): Promise<void> {
    const host = {
      hooks: this.hooks,
      log: this.log,
      http: this.http,
      httpHitLane: this.httpHitLane,
      source: this.source,
      metrics: this.metrics,
      listenAddresses: {
        http: this.#options.http ?? '127.0.0.1:8090',
        flight: this.#options.flight === false ? undefined : (this.#options.flight ?? '127.0.0.1:50051'),
        metrics: this.#options.metrics,
      },
      cluster: this.#options.cluster ?? SINGLE_NODE,
      boundEndpoints: () => ({ http: this.#httpEndpoint, flight: this.flightEndpoint }),
      reportListener: (listener: ListenerReport) => this.#pluginListeners.push(listener),
      flightService: (options: { authenticate: PeerAuthentication }) => {
        const pipeline = this.#pipeline;
        const engine = this.#engine;
        if (!pipeline || !engine) return undefined;
        return import('./flight/flight-service.js').then(({ createFlightService }) => createFlightService({
          hooks: this.hooks,
          pipeline,
          engine,
          manifest: this.#manifest,
          log: this.log.child('flight'),
          phase: this.#phase,
          authenticate: options.authenticate,
        }));
      },
      connectors: this.connectors,
      tools: this.tools,
      outbound: this.outbound,
      tls: this.#tls,
      manifest: () => this.#manifest,
      engine: () => this.#engine,
      pipeline: () => this.#pipeline,
      planQueriesAhead: (wanted: (sql: string) => boolean) => {
        this.#planAhead = wanted;
        if (this.#pipeline) this.#pipeline.planAhead = wanted;
      },
      phase: () => this.#phase.current,
    };
    for (const plugin of this.#options.plugins) {
      try {
        await plugin.apply(createPluginRuntime(host, plugin.name));
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new QuarryError('PLUGIN_FAILED', `plugin "${plugin.name}" failed in apply: ${message}`, { cause: error });
      }
      this.log.debug('plugin applied', { plugin: plugin.name });
    }
  }

  async #listenHttp(): Promise<void> {
    const listener = await listenHttp(this.http, this.#options.http ?? '127.0.0.1:8090');
    this.#httpEndpoint = listener.endpoint;
    this.hooks.shutdown.stop.tapPromise({ name: 'core:http', stage: STAGE.STOP_LISTENERS }, () => listener.close());
    this.log.info('HTTP listening', { endpoint: `${this.#tls ? 'https' : 'http'}://${this.#httpEndpoint}` });
  }

  async #listenFlight(flightModule: Promise<typeof import('./flight/listener.js')> | undefined): Promise<void> {
    const address = this.#options.flight ?? '127.0.0.1:50051';
    if (address === false || !flightModule) return;
    parseListenAddress(address, '--flight');
    const { startFlightListener } = await flightModule;
    this.#flight = await startFlightListener({
      address,
      hooks: this.hooks,
      pipeline: this.pipeline,
      engine: this.engine,
      manifest: this.#manifest,
      log: this.log.child('flight'),
      phase: this.#phase,
      tls: this.#tls,
    });
    const flight = this.#flight;
    this.hooks.shutdown.stop.tapPromise({ name: 'core:flight', stage: STAGE.STOP_LISTENERS }, () => flight.close());
    this.log.info('Flight listening', { endpoint: `${this.#tls ? 'grpc+tls' : 'grpc'}://${flight.endpoint}` });
  }

  /**
   * Drain (refuse new work, let in-flight queries finish) within runtime.shutdown_timeout,
   * interrupt what is left, then stop listeners, plugins and engine in that order.
   */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  /** Engine statements still holding a connection; after `stop()`, those the engine would not stop. */
  get runningStatements(): number {
    return this.#engine?.activeQueries ?? 0;
  }

  /** For an immediate exit: stop every engine query now (DuckDB would finish them before the process could exit). */
  interruptQueries(): void {
    this.#engine?.interruptAll();
  }

  async #stop(): Promise<void> {
    if (this.#phase.current === 'stopped') return;
    if (this.#phase.current === 'created') {
      this.#phase.moveTo('stopped');
      return;
    }
    if (this.#phase.current === 'starting') {
      // Start-up ends at its next step (its waits for sources end now); then what it started is released here.
      this.log.info('stop requested during start-up: start-up ends at its next step');
      this.#startAbort.abort();
      // Bounded: a start-up step that ignores the stop (a plugin's startup tap) is not waited for
      // past shutdown_timeout; start-up then returns at its next step, after the release below.
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#manifest.runtime.shutdown_timeout)));
      await Promise.race([this.#starting?.catch(() => undefined), bound]);
      clearTimeout(timer);
      // Start-up failed (and released) meanwhile: nothing is left to stop.
      if ((this.#phase.current as Phase) === 'stopped') return;
    }
    if (this.#phase.current !== 'failed') this.#phase.moveTo('draining');
    // Sources still asked for their columns stop being asked now, before plugins stop what they use.
    this.#engine?.stopRegistering();
    const timeoutMs = this.#manifest.runtime.shutdown_timeout;
    const deadline = Date.now() + timeoutMs;
    const controller = new AbortController();
    this.log.info('shutting down: draining in-flight work', { active_queries: this.#pipeline?.activeCount ?? 0, timeout_ms: timeoutMs });
    const drained = Promise.all([
      this.#pipeline?.whenIdle(),
      this.hooks.shutdown.drain.promise({ remainingMs: () => Math.max(0, deadline - Date.now()), signal: controller.signal }),
    ]);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), timeoutMs);
    });
    const outcome = await Promise.race([drained.then(() => 'drained' as const), expired]);
    clearTimeout(timer);
    if (outcome === 'expired') {
      controller.abort();
      this.log.warn('shutdown_timeout reached: interrupting queries still running', { active_queries: this.#pipeline?.activeCount ?? 0 });
      this.#engine?.interruptAll();
    }
    await this.#release();
  }

  async #release(): Promise<void> {
    try {
      await this.hooks.shutdown.stop.promise();
    } catch (error) {
      this.log.error('a shutdown step failed', { error: (error as Error).message });
    }
    if (this.#phase.current !== 'stopped') this.#phase.moveTo('stopped');
    this.log.info('runtime stopped');
  }

  #routeContext(): RouteContext {
    // Getters: routes are registered before the engine and pipeline exist.
    const engine = () => this.engine;
    const pipeline = () => this.pipeline;
    return {
      hooks: this.hooks,
      log: this.log.child('http'),
      get pipeline() {
        return pipeline();
      },
      get engine() {
        return engine();
      },
      isReady: () => this.isReady(),
      listeners: () => this.listeners(),
    };
  }
}
