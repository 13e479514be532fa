/**
 * `quarry/plugin`: the types a plugin is written against, and nothing else (this module has
 * no runtime code). Everything a plugin needs is reachable from here and from `quarry`; a
 * plugin never imports a path under `core/` (the package's `exports` do not allow it).
 *
 * The plugin API is versioned by PLUGIN_API_VERSION (exported by `quarry`): a plugin that
 * declares `pluginApiVersion` is refused by a runtime serving another version, with a message
 * naming both. `definePlugin` from `quarry` fills it in.
 */
export type {
  QuarryPlugin,
  PluginRuntime,
  PluginModuleExport,
  ManifestSlice,
  PipelineQueryOptions,
  ListenerReport,
  ListenAddresses,
  ClusterNodeOptions,
} from '../core/plugins/types.js';
export type { Hooks, DrainContext } from '../core/hooks/hooks.js';
export type { OfflineCheck } from '../core/engine/check/offline-check.js';
export type {
  Principal,
  Protocol,
  InboundRequest,
  QueryRequest,
  QueryResult,
  QueryOutcome,
  CacheInvalidation,
  DatasetLoadEvent,
  DatasetRegisteredEvent,
  EncodedAnswer,
  TlsPeer,
  StatementKind,
  CacheStatus,
} from '../core/pipeline/types.js';
export type { OutboundRequest } from '../core/outbound/types.js';
export type { Manifest, ManifestSource } from '../core/manifest/types.js';
export type { ManifestSectionSlice, SliceResolveContext } from '../core/manifest/slice.js';
export type { Logger } from '../core/log.js';
export type { EngineApi, DatasetStatus, ViewStatus } from '../core/engine/engine-api.js';
export type { MetricsRegistry } from '../core/metrics/registry.js';
export type { DatasetConnector } from '../core/engine/sources/connector.js';
export type { RuntimeTool } from '../core/tools/tool-registry.js';
export type { CoreErrorCode, ErrorCodeSpec } from '../core/errors/codes.js';
export type { ErrorStatus, QuarryError } from '../core/errors/quarry-error.js';

// Brings the runtime's fastify augmentation (`request.inbound`: the caller as the auth hook decided it) to plugin routes.
export type {} from '../core/http/inbound.js';
