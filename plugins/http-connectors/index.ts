import type { QuarryPlugin } from '../../core/plugins/types.js';
import './errors.js';
import { createGithubConnector } from './github-connector.js';
import { createGraphqlConnector } from './graphql-connector.js';
import { createHttpsConnector } from './https-connector.js';

export const HTTP_CONNECTORS_PLUGIN_NAME = 'http-connectors';

/**
 * The HTTP-family connectors: `https:`/`http:` files and JSON APIs, `graphql:` and `github:`.
 * All of them request through the runtime's one outbound client, so rate control (the
 * source-rate-control plugin) and retries apply to every one.
 */
export function createHttpConnectorsPlugin(): QuarryPlugin {
  return {
    name: HTTP_CONNECTORS_PLUGIN_NAME,
    apply(runtime) {
      runtime.registerConnector(createHttpsConnector(runtime.outbound));
      runtime.registerConnector(createGraphqlConnector(runtime.outbound));
      runtime.registerConnector(createGithubConnector(runtime.outbound));
    },
  };
}
