import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ConnectorDataset, DatasetConnector, EngineSource } from '../../core/engine/sources/connector.js';
import { checkParamNames, requiredParam } from '../../core/engine/sources/connector-params.js';
import { quoteIdentifier, quoteLiteral } from '../../core/engine/sql-text.js';
import { QuarryError } from '../../core/errors/quarry-error.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import './errors.js';

export const DUCKDB_CONNECTOR_PLUGIN_NAME = 'connector-duckdb';

const ACCEPTED_PARAMS = ['duckdb_open'] as const;

/**
 * `from: duckdb:schema.table` with `params.duckdb_open: path.db`: a table or view of an
 * existing DuckDB database file, which the engine attaches read-only once (datasets naming the
 * same file share the attachment) and reads itself, so every filter and projection is
 * DuckDB's own. DuckDB holds the file open (and locked) while the runtime runs.
 */
export const duckdbConnector: DatasetConnector = {
  schemes: ['duckdb'],
  resolve(dataset: ConnectorDataset): EngineSource {
    checkParamNames(dataset, ACCEPTED_PARAMS, 'DUCKDB_PARAMS_INVALID');
    const file = path.resolve(dataset.baseDirectory, requiredParam(dataset, 'duckdb_open', 'DUCKDB_PARAMS_INVALID', 'the path of the DuckDB database file, relative to the manifest'));
    if (!existsSync(file) || !statSync(file).isFile()) {
      throw new QuarryError('DUCKDB_PARAMS_INVALID', `dataset ${dataset.name}: params.duckdb_open names ${file}, which is not an existing file`);
    }
    const parts = dataset.location.split('.');
    if (parts.length > 2 || parts.some((part) => part === '')) {
      throw new QuarryError('DUCKDB_PARAMS_INVALID', `dataset ${dataset.name}: from "${dataset.from}" must name a table as duckdb:schema.table or duckdb:table`);
    }
    const [schema, table] = parts.length === 2 ? (parts as [string, string]) : ['main', parts[0]!];
    const alias = `quarry_duckdb_${createHash('sha256').update(file).digest('hex').slice(0, 12)}`;
    return {
      kind: 'engine',
      tableExpression: [alias, schema, table].map(quoteIdentifier).join('.'),
      allowedPaths: [file, `${file}.wal`],
      allowedDirectories: [],
      setupStatements: [`ATTACH IF NOT EXISTS ${quoteLiteral(file)} AS ${quoteIdentifier(alias)} (READ_ONLY)`],
    };
  },
};

export function createDuckdbConnectorPlugin(): QuarryPlugin {
  return {
    name: DUCKDB_CONNECTOR_PLUGIN_NAME,
    apply(runtime) {
      runtime.registerConnector(duckdbConnector);
    },
  };
}
