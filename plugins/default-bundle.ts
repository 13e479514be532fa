import type { QuarryPlugin } from '../core/plugins/types.js';
import { createApiKeyPlugin } from './api-key/index.js';
import { createClientCertPlugin } from './client-cert/index.js';
import { createCorsPlugin } from './cors/index.js';
import { createFunctionsPlugin } from './functions/index.js';
import { createGeoPlugin } from './geo/index.js';
import { createHttpConnectorsPlugin } from './http-connectors/index.js';
import { createMcpPlugin } from './mcp/index.js';
import { createResultsCachePlugin } from './results-cache/index.js';
import { createSchedulerPlugin } from './scheduler/index.js';
import { createSourceRateControlPlugin } from './source-rate-control/index.js';
import { createTaskHistoryPlugin } from './task-history/index.js';
import { createSpiceCatalogPlugin } from './spice-catalog/index.js';
import { createTelemetryPlugin } from './telemetry/index.js';
import { createSqliteConnectorPlugin } from './connector-sqlite/index.js';
import { createS3ConnectorPlugin } from './connector-s3/index.js';
import { createDuckdbConnectorPlugin } from './connector-duckdb/index.js';
import { createPostgresConnectorPlugin } from './connector-postgres/index.js';

/**
 * The built-in plugins, in apply order. Each is switched off with
 * `plugins: [{ name: <name>, enabled: false }]`. Fresh instances per call, so two runtimes
 * in one process share no plugin state.
 */
export function defaultPlugins(): QuarryPlugin[] {
  return [
    createApiKeyPlugin(),
    createClientCertPlugin(),
    createCorsPlugin(),
    createResultsCachePlugin(),
    createTelemetryPlugin(),
    createTaskHistoryPlugin(),
    // After task-history: its start-up creates runtime.task_history, which spice.runtime.task_history reads.
    createSpiceCatalogPlugin(),
    createFunctionsPlugin(),
    createGeoPlugin(),
    createMcpPlugin(),
    createSourceRateControlPlugin(),
    createHttpConnectorsPlugin(),
    createSchedulerPlugin(),
    createSqliteConnectorPlugin(),
    createS3ConnectorPlugin(),
    createDuckdbConnectorPlugin(),
    createPostgresConnectorPlugin(),
  ];
}
