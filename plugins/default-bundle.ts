import type { LazyPlugin, QuarryPlugin } from '../core/plugins/types.js';

/** A built-in imported only when enabled (see LazyPlugin). */
function builtin(name: string, sections: readonly string[], load: () => Promise<QuarryPlugin>): LazyPlugin {
  return { name, sections, load };
}

/**
 * The built-in plugins, in apply order. Each is switched off with
 * `plugins: [{ name: <name>, enabled: false }]`, and then never imported. Fresh instances per
 * call, so two runtimes in one process share no plugin state.
 */
export function defaultPlugins(): LazyPlugin[] {
  return [
    builtin('api-key', ['runtime.auth'], async () => (await import('./api-key/index.js')).createApiKeyPlugin()),
    builtin('client-cert', [], async () => (await import('./client-cert/index.js')).createClientCertPlugin()),
    builtin('cors', ['runtime.cors'], async () => (await import('./cors/index.js')).createCorsPlugin()),
    builtin('results-cache', ['runtime.caching', 'runtime.results_cache'], async () => (await import('./results-cache/index.js')).createResultsCachePlugin()),
    builtin('telemetry', ['runtime.telemetry', 'runtime.metrics'], async () => (await import('./telemetry/index.js')).createTelemetryPlugin()),
    builtin('task-history', ['runtime.task_history'], async () => (await import('./task-history/index.js')).createTaskHistoryPlugin()),
    // After task-history: its start-up creates runtime.task_history, which spice.runtime.task_history reads.
    builtin('spice-catalog', [], async () => (await import('./spice-catalog/index.js')).createSpiceCatalogPlugin()),
    builtin('functions', ['runtime.functions', 'functions', 'tools'], async () => (await import('./functions/index.js')).createFunctionsPlugin()),
    builtin('geo', [], async () => (await import('./geo/index.js')).createGeoPlugin()),
    builtin('playground', [], async () => (await import('./playground/index.js')).createPlaygroundPlugin()),
    // After functions and geo (user functions may be called in a search's where), before mcp (which lists its tool).
    builtin('search', ['embeddings'], async () => (await import('./search/index.js')).createSearchPlugin()),
    builtin('mcp', ['runtime.mcp'], async () => (await import('./mcp/index.js')).createMcpPlugin()),
    builtin('source-rate-control', ['runtime.source_rate_control'], async () => (await import('./source-rate-control/index.js')).createSourceRateControlPlugin()),
    builtin('http-connectors', [], async () => (await import('./http-connectors/index.js')).createHttpConnectorsPlugin()),
    builtin('scheduler', ['runtime.scheduler'], async () => (await import('./scheduler/index.js')).createSchedulerPlugin()),
    builtin('connector-sqlite', [], async () => (await import('./connector-sqlite/index.js')).createSqliteConnectorPlugin()),
    builtin('connector-s3', [], async () => (await import('./connector-s3/index.js')).createS3ConnectorPlugin()),
    builtin('connector-duckdb', [], async () => (await import('./connector-duckdb/index.js')).createDuckdbConnectorPlugin()),
    builtin('connector-postgres', [], async () => (await import('./connector-postgres/index.js')).createPostgresConnectorPlugin()),
  ];
}

/** Every built-in, loaded: for tools that need them all (the JSON Schema generator, docs checks). */
export async function loadedDefaultPlugins(): Promise<QuarryPlugin[]> {
  return Promise.all(defaultPlugins().map((plugin) => plugin.load()));
}
