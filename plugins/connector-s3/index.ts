import path from 'node:path';
import type { ConnectorDataset, DatasetConnector, EngineSource } from '../../core/engine/sources/connector.js';
import { quoteLiteral } from '../../core/engine/sql-text.js';
import type { QuarryPlugin } from '../../core/plugins/types.js';
import './errors.js';
import { s3Settings, type S3Format } from './s3-location.js';

export const S3_CONNECTOR_PLUGIN_NAME = 'connector-s3';

/**
 * `from: s3://bucket/prefix/`: parquet, csv or json objects under a prefix. DuckDB here has no
 * httpfs, so the objects are mirrored into `.quarry/s3/<dataset>/` (by ETag, only changed ones
 * are downloaded) before each load or refresh and before each live query, and DuckDB reads the
 * mirror with its own readers (filters and projections pushed into the parquet scan).
 */
export const s3Connector: DatasetConnector = {
  schemes: ['s3'],
  async resolve(dataset: ConnectorDataset): Promise<EngineSource> {
    const settings = s3Settings(dataset);
    const directory = path.resolve(dataset.baseDirectory, '.quarry', 's3', dataset.name.toLowerCase());
    // @aws-sdk/client-s3 loads only when a dataset uses s3: start-up imports no connector library it does not need.
    const { S3Mirror } = await import('./s3-mirror.js');
    const mirror = new S3Mirror({ settings, directory, dataset: dataset.name, log: dataset.log });
    return {
      kind: 'engine',
      tableExpression: readExpression(settings.format, directory, settings.hivePartitioning),
      allowedPaths: [],
      allowedDirectories: [directory],
      synchronise: (signal, progress) => mirror.synchronise(signal, progress),
      close: () => Promise.resolve(mirror.close()),
    };
  },
};

function readExpression(format: S3Format, directory: string, hive: boolean): string {
  const hiveOption = `hive_partitioning = ${hive}`;
  switch (format) {
    case 'parquet': return `read_parquet(${quoteLiteral(path.join(directory, '**', '*.parquet'))}, ${hiveOption}, union_by_name = true)`;
    case 'csv': return `read_csv(${quoteLiteral(path.join(directory, '**', '*.csv'))}, ${hiveOption}, union_by_name = true)`;
    case 'json': return `read_json_auto(${quoteLiteral(path.join(directory, '**', '*.json*'))}, ${hiveOption}, union_by_name = true)`;
  }
}

export function createS3ConnectorPlugin(): QuarryPlugin {
  return {
    name: S3_CONNECTOR_PLUGIN_NAME,
    apply(runtime) {
      runtime.registerConnector(s3Connector);
    },
  };
}
