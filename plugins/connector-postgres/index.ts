import type { ConnectorDataset, DatasetConnector } from '../../core/engine/sources/connector.js';
import { checkParamNames } from '../../core/engine/sources/connector-params.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import { connectionOptions } from './connection-options.js';
import './errors.js';

export const POSTGRES_CONNECTOR_PLUGIN_NAME = 'connector-postgres';

const ACCEPTED_PARAMS = ['pg_host', 'pg_port', 'pg_db', 'pg_user', 'pg_pass', 'pg_sslmode', 'pg_connection_string'] as const;

/** `from: postgres:schema.table` (or `postgres:table`): a PostgreSQL table or view. */
export const postgresConnector: DatasetConnector = {
  schemes: ['postgres', 'postgresql'],
  async resolve(dataset: ConnectorDataset) {
    checkParamNames(dataset, ACCEPTED_PARAMS, 'POSTGRES_PARAMS_INVALID');
    const table = dataset.location.split('.');
    if (table.length > 2 || table.some((part) => part === '')) {
      throw new QuarryError('POSTGRES_PARAMS_INVALID', `dataset ${dataset.name}: from "${dataset.from}" must name a table as postgres:schema.table or postgres:table`);
    }
    const options = { ...connectionOptions(dataset), table };
    // pg loads only when a dataset uses postgres: start-up imports no connector library it does not need.
    const { PostgresSource } = await import('./postgres-source.js');
    return new PostgresSource(dataset, options);
  },
};

export function createPostgresConnectorPlugin(): QuarryPlugin {
  return {
    name: POSTGRES_CONNECTOR_PLUGIN_NAME,
    apply(runtime) {
      runtime.registerConnector(postgresConnector);
    },
  };
}
