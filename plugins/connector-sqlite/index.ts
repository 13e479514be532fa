import type { ConnectorDataset, DatasetConnector } from '../../core/engine/sources/connector.js';
import { checkParamNames, requiredParam } from '../../core/engine/sources/connector-params.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import './errors.js';

export const SQLITE_CONNECTOR_PLUGIN_NAME = 'connector-sqlite';

const ACCEPTED_PARAMS = ['sqlite_file'] as const;

/** `from: sqlite:table` with `params.sqlite_file`: a table of an existing SQLite file. */
export const sqliteConnector: DatasetConnector = {
  schemes: ['sqlite'],
  async resolve(dataset: ConnectorDataset) {
    checkParamNames(dataset, ACCEPTED_PARAMS, 'SQLITE_PARAMS_INVALID');
    const file = requiredParam(dataset, 'sqlite_file', 'SQLITE_PARAMS_INVALID', 'the path of the SQLite database file, relative to the manifest');
    const table = dataset.location;
    if (table === '' || table.includes('/')) {
      throw new QuarryError('SQLITE_PARAMS_INVALID', `dataset ${dataset.name}: from "${dataset.from}" must name a table, as sqlite:table_name`);
    }
    // sql.js loads only when a dataset uses sqlite: start-up imports no connector library it does not need.
    const { SqliteSource } = await import('./sqlite-source.js');
    return new SqliteSource(dataset, file, table);
  },
};

export function createSqliteConnectorPlugin(): QuarryPlugin {
  return {
    name: SQLITE_CONNECTOR_PLUGIN_NAME,
    apply(runtime) {
      runtime.registerConnector(sqliteConnector);
    },
  };
}
